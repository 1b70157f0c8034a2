package io.akkaetcd.contract;

import akka.actor.ActorSystem;
import akka.stream.Materializer;
import io.akkaetcd.e2e.EmbeddedMember;
import java.util.List;

/**
 * One member for one contract test class, and the two transports to it: gRPC to its client URL
 * and the in-process client. The only place the contract tests start a member or make a client,
 * so that moving to another way of embedding is one edit here. The gRPC clients and the tests'
 * streams run in an ActorSystem of their own, not the member's.
 */
final class ContractMember implements AutoCloseable {
  private final EmbeddedMember member;
  private final ActorSystem clients;
  private final GrpcTransport grpc;
  private final InProcessTransport inProcess;

  /** Starts a member with etcd's flags {@code flags} (beyond its URLs and data directory). */
  ContractMember(String... flags) {
    member = new EmbeddedMember(flags);
    clients = ActorSystem.create("contract-clients");
    try {
      grpc = new GrpcTransport("127.0.0.1", member.port(), clients);
      inProcess = new InProcessTransport(member.server().client());
    } catch (RuntimeException e) {
      clients.terminate();
      member.close();
      throw e;
    }
  }

  /** Both transports: every contract test runs over each. */
  List<Transport> transports() {
    return List.of(grpc, inProcess);
  }

  Materializer materializer() {
    return Materializer.matFromSystem(clients);
  }

  @Override
  public void close() throws Exception {
    try {
      grpc.close();
    } finally {
      clients.terminate();
      member.close();
    }
  }
}
