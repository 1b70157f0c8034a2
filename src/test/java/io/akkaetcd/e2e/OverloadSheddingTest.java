package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.PutResponse;
import io.akkaetcd.proto.etcdserverpb.RangeRequest;
import io.akkaetcd.proto.etcdserverpb.RangeResponse;
import io.akkaetcd.proto.mvccpb.KeyValue;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Overload shedding (issue #33 item 3, etcd #21513): a member with
 * --experimental-max-proposals-in-flight 4 flooded with far more concurrent puts refuses some with
 * exactly etcd's "etcdserver: too many requests" (RESOURCE_EXHAUSTED); every put it admitted is
 * applied, none it refused is, and it serves as before once the flood is over.
 */
class OverloadSheddingTest {
  private static final MethodDescriptor<PutRequest, PutResponse> PUT =
      unary("etcdserverpb.KV/Put", PutRequest.getDefaultInstance(), PutResponse.getDefaultInstance());
  private static final MethodDescriptor<RangeRequest, RangeResponse> RANGE =
      unary("etcdserverpb.KV/Range", RangeRequest.getDefaultInstance(), RangeResponse.getDefaultInstance());
  private static final int FLOOD = 400;

  @Test
  void aFloodIsShedWithEtcdsErrorAndNothingAdmittedIsLost() throws Exception {
    try (EmbeddedMember member = new EmbeddedMember("--experimental-max-proposals-in-flight", "4")) {
      ManagedChannel channel = ManagedChannelBuilder.forTarget("127.0.0.1:" + member.port()).usePlaintext().build();
      try {
        Set<String> admitted = new HashSet<>();
        Set<String> refused = new HashSet<>();
        // Bursts until one was refused: whether a burst overlaps enough is up to the scheduler.
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        for (int burst = 0; refused.isEmpty(); burst++) {
          assertTrue(Instant.now().isBefore(deadline), "no put was refused in " + burst + " bursts of " + FLOOD);
          flood(channel, "flood/" + burst + "/", admitted, refused);
        }
        assertTrue(!admitted.isEmpty(), "some puts were admitted");

        RangeResponse stored = call(channel, RANGE, RangeRequest.newBuilder().setKey(utf8("flood/"))
            .setRangeEnd(utf8("flood0")).build()).get(30, TimeUnit.SECONDS);
        Set<String> keys = new HashSet<>();
        for (KeyValue kv : stored.getKvsList()) {
          keys.add(kv.getKey().toStringUtf8());
          assertEquals("v", kv.getValue().toStringUtf8());
        }
        assertEquals(admitted, keys, "exactly the admitted puts are applied");

        PutResponse after = call(channel, PUT, PutRequest.newBuilder().setKey(utf8("after")).setValue(utf8("ok")).build())
            .get(30, TimeUnit.SECONDS);
        assertEquals(stored.getHeader().getRevision() + 1, after.getHeader().getRevision());
      } finally {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
    }
  }

  /** {@link #FLOOD} puts sent at once; each key lands in {@code admitted} or {@code refused}. */
  private static void flood(ManagedChannel channel, String prefix, Set<String> admitted, Set<String> refused)
      throws Exception {
    List<CompletableFuture<PutResponse>> puts = new ArrayList<>();
    for (int i = 0; i < FLOOD; i++) {
      puts.add(call(channel, PUT, PutRequest.newBuilder().setKey(utf8(prefix + i)).setValue(utf8("v")).build()));
    }
    for (int i = 0; i < FLOOD; i++) {
      try {
        puts.get(i).get(30, TimeUnit.SECONDS);
        admitted.add(prefix + i);
      } catch (ExecutionException e) {
        Status status = Status.fromThrowable(e.getCause());
        assertEquals(Status.Code.RESOURCE_EXHAUSTED, status.getCode(), status.toString());
        assertEquals("etcdserver: too many requests", status.getDescription());
        refused.add(prefix + i);
      }
    }
  }

  private static <Q, R> CompletableFuture<R> call(ManagedChannel channel, MethodDescriptor<Q, R> method, Q request) {
    CompletableFuture<R> result = new CompletableFuture<>();
    com.google.common.util.concurrent.ListenableFuture<R> f =
        ClientCalls.futureUnaryCall(channel.newCall(method, CallOptions.DEFAULT), request);
    f.addListener(() -> {
      try {
        result.complete(f.get());
      } catch (ExecutionException e) {
        result.completeExceptionally(e.getCause());
      } catch (InterruptedException e) {
        result.completeExceptionally(e);
      }
    }, Runnable::run);
    return result;
  }

  private static ByteString utf8(String s) {
    return ByteString.copyFromUtf8(s);
  }

  private static <Q extends Message, R extends Message> MethodDescriptor<Q, R> unary(String name, Q request, R response) {
    return MethodDescriptor.<Q, R>newBuilder().setType(MethodDescriptor.MethodType.UNARY).setFullMethodName(name)
        .setRequestMarshaller(ProtoUtils.marshaller(request))
        .setResponseMarshaller(ProtoUtils.marshaller(response)).build();
  }
}
