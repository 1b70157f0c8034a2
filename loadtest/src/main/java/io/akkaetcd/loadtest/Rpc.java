package io.akkaetcd.loadtest;

import com.google.protobuf.Message;
import io.akkaetcd.proto.etcdserverpb.*;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollSocketChannel;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.grpc.protobuf.ProtoUtils;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The etcd v3 methods the benchmarks call, on plain grpc-java channels: no client library between
 * the load and the wire (jetcd's own CPU use would distort the figures on 2 cores). Callbacks run on
 * the channel's event loop, so a closed-loop client issues its next request without a thread hop.
 */
final class Rpc {
  static final MethodDescriptor<PutRequest, PutResponse> PUT = unary("etcdserverpb.KV/Put", PutRequest.getDefaultInstance(), PutResponse.getDefaultInstance());
  static final MethodDescriptor<RangeRequest, RangeResponse> RANGE = unary("etcdserverpb.KV/Range", RangeRequest.getDefaultInstance(), RangeResponse.getDefaultInstance());
  static final MethodDescriptor<TxnRequest, TxnResponse> TXN = unary("etcdserverpb.KV/Txn", TxnRequest.getDefaultInstance(), TxnResponse.getDefaultInstance());
  static final MethodDescriptor<LeaseGrantRequest, LeaseGrantResponse> LEASE_GRANT = unary("etcdserverpb.Lease/LeaseGrant", LeaseGrantRequest.getDefaultInstance(), LeaseGrantResponse.getDefaultInstance());
  static final MethodDescriptor<StatusRequest, StatusResponse> STATUS = unary("etcdserverpb.Maintenance/Status", StatusRequest.getDefaultInstance(), StatusResponse.getDefaultInstance());
  static final MethodDescriptor<io.akkaetcd.proto.v3lockpb.LockRequest, io.akkaetcd.proto.v3lockpb.LockResponse> LOCK =
      unary("v3lockpb.Lock/Lock", io.akkaetcd.proto.v3lockpb.LockRequest.getDefaultInstance(),
          io.akkaetcd.proto.v3lockpb.LockResponse.getDefaultInstance());
  static final MethodDescriptor<io.akkaetcd.proto.v3lockpb.UnlockRequest, io.akkaetcd.proto.v3lockpb.UnlockResponse> UNLOCK =
      unary("v3lockpb.Lock/Unlock", io.akkaetcd.proto.v3lockpb.UnlockRequest.getDefaultInstance(),
          io.akkaetcd.proto.v3lockpb.UnlockResponse.getDefaultInstance());
  static final MethodDescriptor<AuthenticateRequest, AuthenticateResponse> AUTHENTICATE =
      unary("etcdserverpb.Auth/Authenticate", AuthenticateRequest.getDefaultInstance(), AuthenticateResponse.getDefaultInstance());
  static final MethodDescriptor<WatchRequest, WatchResponse> WATCH = bidi("etcdserverpb.Watch/Watch", WatchRequest.getDefaultInstance(), WatchResponse.getDefaultInstance());
  static final MethodDescriptor<LeaseKeepAliveRequest, LeaseKeepAliveResponse> KEEP_ALIVE = bidi("etcdserverpb.Lease/LeaseKeepAlive", LeaseKeepAliveRequest.getDefaultInstance(), LeaseKeepAliveResponse.getDefaultInstance());

  static {
    // Netty samples one buffer in 128 for leak tracking, with a stack trace each time: 2 % of the
    // tool's CPU under put load, taken from the cores the server under test runs on.
    io.grpc.netty.shaded.io.netty.util.ResourceLeakDetector.setLevel(
        io.grpc.netty.shaded.io.netty.util.ResourceLeakDetector.Level.DISABLED);
  }

  private Rpc() {}

  /**
   * The event loops every channel shares: one thread a core, as Go's runtime runs etcd's own
   * benchmark. grpc-java's default is two a core, and on 2 cores the extra threads' wake-ups take
   * CPU from the server under test (see docs/results-history.md, 2026-11-24). Daemon threads: the
   * tool exits when it is done.
   */
  private static final EventLoopGroup LOOPS = new EpollEventLoopGroup(Runtime.getRuntime().availableProcessors(),
      new DefaultThreadFactory("loadtest-io", true));

  static <Q extends Message, R extends Message> MethodDescriptor<Q, R> unary(String name, Q req, R resp) {
    return MethodDescriptor.<Q, R>newBuilder().setType(MethodDescriptor.MethodType.UNARY).setFullMethodName(name)
        .setRequestMarshaller(ProtoUtils.marshaller(req)).setResponseMarshaller(ProtoUtils.marshaller(resp)).build();
  }

  private static <Q extends Message, R extends Message> MethodDescriptor<Q, R> bidi(String name, Q req, R resp) {
    return MethodDescriptor.<Q, R>newBuilder().setType(MethodDescriptor.MethodType.BIDI_STREAMING).setFullMethodName(name)
        .setRequestMarshaller(ProtoUtils.marshaller(req)).setResponseMarshaller(ProtoUtils.marshaller(resp)).build();
  }

  /** {@code conns} plaintext channels spread over the endpoints ("host:port" or "http://host:port"). */
  static List<ManagedChannel> channels(List<String> endpoints, int conns) {
    return channels(endpoints, conns, ClientAccess.PLAIN);
  }

  /**
   * {@code conns} channels spread over the endpoints, reached as {@code access} says; with a user,
   * each channel has authenticated (one Authenticate call) before it is returned.
   */
  static List<ManagedChannel> channels(List<String> endpoints, int conns, ClientAccess access) {
    List<ManagedChannel> out = new ArrayList<>();
    try {
      for (int i = 0; i < conns; i++) {
        out.add(channel(endpoints.get(i % endpoints.size()), access));
      }
    } catch (RuntimeException e) {
      shutdown(out);
      throw e;
    }
    return out;
  }

  private static ManagedChannel channel(String endpoint, ClientAccess access) {
    String ep = endpoint.replaceFirst("^https?://", "");
    int colon = ep.lastIndexOf(':');
    // No retries: the tool counts a failure as one, and a retrying call keeps bookkeeping of
    // its own on every call.
    NettyChannelBuilder b = NettyChannelBuilder.forAddress(ep.substring(0, colon), Integer.parseInt(ep.substring(colon + 1)))
        .eventLoopGroup(LOOPS).channelType(EpollSocketChannel.class).disableRetry()
        .directExecutor().maxInboundMessageSize(64 << 20).flowControlWindow(4 << 20);
    if (access.tls() == null) b.usePlaintext();
    else b.sslContext(access.tls());
    if (access.user() == null) return b.build();
    AuthToken token = new AuthToken();
    ManagedChannel ch = b.intercept(token).build();
    try {
      token.set(call(ch, AUTHENTICATE, AuthenticateRequest.newBuilder().setName(access.user())
          .setPassword(access.password()).build()).get(30, TimeUnit.SECONDS).getToken());
      return ch;
    } catch (Exception e) {
      ch.shutdownNow();
      throw new IllegalStateException("cannot authenticate as " + access.user() + " on " + endpoint, e);
    }
  }

  static void shutdown(List<ManagedChannel> channels) {
    for (ManagedChannel c : channels) c.shutdownNow();
    for (ManagedChannel c : channels) {
      try {
        c.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** One unary call; {@code done} gets the response or, on failure, null and the status. */
  static <Q, R> void call(ManagedChannel ch, MethodDescriptor<Q, R> m, Q req, BiConsumer<R, Status> done) {
    call(ch, m, CallOptions.DEFAULT, req, done);
  }

  static <Q, R> void call(ManagedChannel ch, MethodDescriptor<Q, R> m, CallOptions options, Q req,
      BiConsumer<R, Status> done) {
    ClientCall<Q, R> call = ch.newCall(m, options);
    call.start(new ClientCall.Listener<>() {
      private R response;

      @Override
      public void onMessage(R message) {
        response = message;
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        done.accept(status.isOk() ? response : null, status);
      }
    }, new Metadata());
    call.request(2);
    call.sendMessage(req);
    call.halfClose();
  }

  static <Q, R> CompletableFuture<R> call(ManagedChannel ch, MethodDescriptor<Q, R> m, Q req) {
    return call(ch, m, CallOptions.DEFAULT, req);
  }

  static <Q, R> CompletableFuture<R> call(ManagedChannel ch, MethodDescriptor<Q, R> m, CallOptions options, Q req) {
    CompletableFuture<R> f = new CompletableFuture<>();
    call(ch, m, options, req, (r, s) -> {
      if (r != null) f.complete(r);
      else f.completeExceptionally(s.asRuntimeException());
    });
    return f;
  }

  /** An open bidirectional stream: send from any thread; every response goes to {@code onResponse}. */
  static final class Stream<Q, R> {
    private final ClientCall<Q, R> call;
    final CompletableFuture<Status> closed = new CompletableFuture<>();

    Stream(ManagedChannel ch, MethodDescriptor<Q, R> m, Consumer<R> onResponse) {
      call = ch.newCall(m, CallOptions.DEFAULT);
      call.start(new ClientCall.Listener<>() {
        @Override
        public void onMessage(R message) {
          onResponse.accept(message);
          call.request(1);
        }

        @Override
        public void onClose(Status status, Metadata trailers) {
          closed.complete(status);
        }
      }, new Metadata());
      call.request(1);
    }

    /** ClientCall is not thread-safe: senders are serialized here. */
    synchronized void send(Q message) {
      call.sendMessage(message);
    }

    void cancel() {
      call.cancel("benchmark done", null);
    }
  }
}
