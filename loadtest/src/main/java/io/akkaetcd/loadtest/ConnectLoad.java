package io.akkaetcd.loadtest;

import com.google.protobuf.ByteString;
import io.akkaetcd.proto.etcdserverpb.RangeRequest;
import io.akkaetcd.proto.etcdserverpb.RangeResponse;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import javax.net.ssl.SSLSession;

/**
 * connect: each operation opens a new connection (TCP, then the TLS handshake if the access is TLS),
 * sends one serializable Range on it and closes it: new connections per second.
 *
 * <p>Handshakes are counted full or resumed from the client's side: the JDK hands a resumed
 * connection the cached session (TLS 1.2 by session id, TLS 1.3 by a ticket's PSK), whose creation
 * time precedes the connection; a full handshake makes a new session while the connection is opened.
 */
final class ConnectLoad {
  private ConnectLoad() {}

  static Report connect(Options o, Supplier<ManagedChannel> dial, int clients, long total, double rate)
      throws InterruptedException {
    RangeRequest req = RangeRequest.newBuilder().setKey(ByteString.copyFromUtf8(o.string("key", "bench-range")))
        .setSerializable(true).build();
    AtomicLong full = new AtomicLong();
    AtomicLong resumed = new AtomicLong();
    Report report = ClosedLoop.run("connect", List.of(dial), clients, total, rate, (d, client, seq, done) -> {
      long openedAtMillis = System.currentTimeMillis();
      ManagedChannel ch = d.get();
      ClientCall<RangeRequest, RangeResponse> call = ch.newCall(Rpc.RANGE, CallOptions.DEFAULT);
      call.start(new ClientCall.Listener<>() {
        @Override
        public void onClose(Status status, Metadata trailers) {
          SSLSession session = call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
          if (session != null) (session.getCreationTime() < openedAtMillis ? resumed : full).incrementAndGet();
          ch.shutdownNow();
          done.accept(status);
        }
      }, new Metadata());
      call.request(1);
      call.sendMessage(req);
      call.halfClose();
    });
    report.extra.put("tls_full_handshakes", full.get());
    report.extra.put("tls_resumed_handshakes", resumed.get());
    return report;
  }
}
