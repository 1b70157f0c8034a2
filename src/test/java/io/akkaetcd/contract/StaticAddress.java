package io.akkaetcd.contract;

import io.grpc.EquivalentAddressGroup;
import io.grpc.NameResolver;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;

/**
 * A name resolver that always answers one address. Akka gRPC's netty backend resolves through
 * Akka Discovery with a target that the grpc-java the tests pin (1.60, for jetcd) turns into
 * {@code http://///host}, which Akka's resolver refuses ("target uri should not have null
 * authority"); the tests know the member's address, so they skip discovery.
 */
final class StaticAddress extends NameResolver.Factory {
  private final InetSocketAddress address;

  StaticAddress(String host, int port) {
    this.address = new InetSocketAddress(host, port);
  }

  @Override
  public NameResolver newNameResolver(URI targetUri, NameResolver.Args args) {
    return new NameResolver() {
      @Override
      public String getServiceAuthority() {
        return address.getHostString() + ":" + address.getPort();
      }

      @Override
      public void start(Listener2 listener) {
        listener.onResult(ResolutionResult.newBuilder()
            .setAddresses(List.of(new EquivalentAddressGroup(address))).build());
      }

      @Override
      public void shutdown() {}
    };
  }

  @Override
  public String getDefaultScheme() {
    return "static";
  }
}
