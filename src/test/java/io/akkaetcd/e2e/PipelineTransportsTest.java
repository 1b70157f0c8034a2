package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.ActorSystem;
import akka.stream.javadsl.Sink;
import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.akkaetcd.api.pipeline.Call;
import io.akkaetcd.api.pipeline.CallObserver;
import io.akkaetcd.api.pipeline.Plugins;
import io.akkaetcd.errors.ErrorCode;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.PutResponse;
import io.akkaetcd.proto.etcdserverpb.WatchCreateRequest;
import io.akkaetcd.proto.etcdserverpb.WatchRequest;
import io.akkaetcd.proto.etcdserverpb.WatchResponse;
import io.akkaetcd.embed.EtcdClient;
import io.akkaetcd.server.EtcdServer;
import io.akkaetcd.server.Flags;
import io.akkaetcd.server.ServerConfig;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Both transports pass the same pipeline: with recording auth stages and observer installed in a
 * member, a put and a watch over gRPC and the same through the in-process client are each
 * authenticated, authorized and observed once, under the same etcd method name; the gRPC call's
 * {@code token} metadata reaches the authenticator.
 */
class PipelineTransportsTest {
  private final List<String> authorized = new CopyOnWriteArrayList<>();
  private final List<String> finished = new CopyOnWriteArrayList<>();

  private Plugins recording() {
    return Plugins.NONE
        .withAuthenticator(call -> call.metadata("token") == null ? null
            : new io.akkaetcd.auth.AuthInfo(call.metadata("token"), 1))
        .withAuthorizer((call, request) -> authorized.add(call.transport() + " " + call.method() + " " + call.user()))
        .withObserver(new CallObserver() {
          @Override
          public void started(Call call) {}

          @Override
          public void finished(Call call, ErrorCode code, Throwable failure) {
            finished.add(call.transport() + " " + call.method() + " " + code);
          }
        });
  }

  @Test
  void grpcAndInProcessCallsPassTheSameStages() throws Exception {
    Path dataDir = Files.createTempDirectory("pipeline-transports");
    String url = "http://127.0.0.1:" + Ports.free();
    String peer = "http://127.0.0.1:" + Ports.free();
    ServerConfig config = ServerConfig.fromFlags(Flags.parse(new String[] {"--name", "p1", "--data-dir",
        dataDir.toString(), "--listen-client-urls", url, "--advertise-client-urls", url, "--listen-peer-urls", peer,
        "--initial-advertise-peer-urls", peer, "--initial-cluster", "p1=" + peer}, Map.of()));
    EtcdServer server = EtcdServer.start(config, com.typesafe.config.ConfigFactory.load(), recording());
    ManagedChannel channel = ManagedChannelBuilder.forTarget(url.substring("http://".length())).usePlaintext().build();
    ActorSystem system = ActorSystem.create("pipeline-transports-test");
    try {
      Metadata token = new Metadata();
      token.put(Metadata.Key.of("token", Metadata.ASCII_STRING_MARSHALLER), "alice");
      PutRequest put = PutRequest.newBuilder().setKey(ByteString.copyFromUtf8("k")).setValue(ByteString.copyFromUtf8("v"))
          .build();
      PutResponse overGrpc = ClientCalls.blockingUnaryCall(
          ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(token)),
          descriptor(MethodDescriptor.MethodType.UNARY, "etcdserverpb.KV/Put", put, PutResponse.getDefaultInstance()),
          CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), put);
      assertTrue(overGrpc.getHeader().getRevision() > 1);
      PutResponse inProcess = EtcdClient.create(server.services(), server.clientExecutor()).kv().put(put).toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertEquals(overGrpc.getHeader().getRevision() + 1, inProcess.getHeader().getRevision());

      WatchResponse grpcWatch = firstWatchResponse(channel);
      assertTrue(grpcWatch.getCreated());
      WatchResponse inProcessWatch = EtcdClient.create(server.services(), server.clientExecutor()).watch().watch(ByteString.copyFromUtf8("k"), 0)
          .runWith(Sink.head(), system).toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertTrue(inProcessWatch.getCreated());

      assertEquals(List.of("GRPC /etcdserverpb.KV/Put alice", "IN_PROCESS /etcdserverpb.KV/Put null",
          "GRPC /etcdserverpb.Watch/Watch null", "IN_PROCESS /etcdserverpb.Watch/Watch null"), authorized);
      awaitFinished(List.of("GRPC /etcdserverpb.KV/Put OK", "IN_PROCESS /etcdserverpb.KV/Put OK",
          "GRPC /etcdserverpb.Watch/Watch OK", "IN_PROCESS /etcdserverpb.Watch/Watch OK"));
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      system.terminate();
      server.close();
      ServerProcess.deleteTree(dataDir);
    }
  }

  /** Opens a gRPC watch on {@code k}, takes its first response (created), and ends the stream. */
  private static WatchResponse firstWatchResponse(ManagedChannel channel) throws Exception {
    WatchRequest create = WatchRequest.newBuilder()
        .setCreateRequest(WatchCreateRequest.newBuilder().setKey(ByteString.copyFromUtf8("k"))).build();
    ClientCall<WatchRequest, WatchResponse> call = channel.newCall(descriptor(MethodDescriptor.MethodType.BIDI_STREAMING,
        "etcdserverpb.Watch/Watch", create, WatchResponse.getDefaultInstance()), CallOptions.DEFAULT);
    return FirstAnswer.of(answers -> ClientCalls.asyncBidiStreamingCall(call, answers), create);
  }

  private static <Q extends Message, R extends Message> MethodDescriptor<Q, R> descriptor(
      MethodDescriptor.MethodType type, String name, Q request, R response) {
    return MethodDescriptor.<Q, R>newBuilder().setType(type).setFullMethodName(name)
        .setRequestMarshaller(ProtoUtils.marshaller(request))
        .setResponseMarshaller(ProtoUtils.marshaller(response)).build();
  }

  /** Each stream's end reaches the observer after the client saw it: wait, with a deadline. */
  private void awaitFinished(List<String> expected) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!finished.containsAll(expected) && System.nanoTime() < deadline) {
      Thread.sleep(10); // polling the condition, bounded by the deadline
    }
    assertEquals(expected.stream().sorted().toList(), finished.stream().sorted().toList());
  }
}
