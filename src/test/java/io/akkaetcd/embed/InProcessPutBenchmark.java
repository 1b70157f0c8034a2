package io.akkaetcd.embed;

import com.google.protobuf.ByteString;
import io.akkaetcd.e2e.EmbeddedMember;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.PutResponse;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.MethodDescriptor;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Puts through the in-process client against puts through grpc-java on the same member, in one
 * run, alternating rounds: {@value #CALLERS} concurrent callers, each issuing its next put when
 * the last one is answered. Prints throughput and p50/p99 latency per round. Not a test.
 *
 * <pre>
 * mvn -B -q -o test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 * java -cp target/test-classes:target/classes:$(cat target/cp.txt) \
 *     io.akkaetcd.embed.InProcessPutBenchmark [puts-per-round] [rounds]
 * </pre>
 */
public final class InProcessPutBenchmark {
  static final int CALLERS = 64;

  private InProcessPutBenchmark() {}

  public static void main(String[] args) throws Exception {
    int puts = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    try (EmbeddedMember member = new EmbeddedMember()) {
      Kv kv = member.server().client().kv();
      ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", member.port()).usePlaintext().build();
      MethodDescriptor<PutRequest, PutResponse> put = MethodDescriptor.<PutRequest, PutResponse>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("etcdserverpb.KV/Put")
          .setRequestMarshaller(ProtoUtils.marshaller(PutRequest.getDefaultInstance()))
          .setResponseMarshaller(ProtoUtils.marshaller(PutResponse.getDefaultInstance())).build();
      Function<PutRequest, CompletionStage<?>> inProcess = kv::put;
      Function<PutRequest, CompletionStage<?>> grpc = r -> {
        CompletableFuture<Object> f = new CompletableFuture<>();
        var call = ClientCalls.futureUnaryCall(channel.newCall(put, CallOptions.DEFAULT), r);
        call.addListener(() -> {
          try {
            f.complete(call.get());
          } catch (Exception e) {
            f.completeExceptionally(e);
          }
        }, Runnable::run);
        return f;
      };
      System.out.printf("one member, %d callers, %d puts a round; warm-up round first%n", CALLERS, puts);
      run("warm-up in-process", inProcess, puts / 4);
      run("warm-up gRPC", grpc, puts / 4);
      for (int round = 1; round <= rounds; round++) {
        run("in-process #" + round, inProcess, puts);
        run("gRPC       #" + round, grpc, puts);
      }
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  /** Runs {@code total} puts from {@link #CALLERS} callers and prints throughput and latency. */
  static void run(String name, Function<PutRequest, CompletionStage<?>> put, int total) throws Exception {
    long[] latencies = new long[total];
    AtomicInteger issued = new AtomicInteger();
    CompletableFuture<Void> done = new CompletableFuture<>();
    AtomicInteger finished = new AtomicInteger();
    ByteString value = ByteString.copyFrom(new byte[256]);
    long start = System.nanoTime();
    for (int c = 0; c < CALLERS; c++) {
      next(put, issued, finished, total, latencies, value, done);
    }
    done.get(10, TimeUnit.MINUTES);
    long elapsed = System.nanoTime() - start;
    Arrays.sort(latencies);
    System.out.printf("%-20s %8.0f puts/s   p50 %6.2f ms   p99 %6.2f ms%n", name, total / (elapsed / 1e9),
        latencies[total / 2] / 1e6, latencies[(int) (total * 0.99)] / 1e6);
  }

  private static void next(Function<PutRequest, CompletionStage<?>> put, AtomicInteger issued, AtomicInteger finished,
      int total, long[] latencies, ByteString value, CompletableFuture<Void> done) {
    int i = issued.getAndIncrement();
    if (i >= total) {
      return;
    }
    PutRequest request = PutRequest.newBuilder().setKey(ByteString.copyFromUtf8("bench/" + (i % 1000)))
        .setValue(value).build();
    long sent = System.nanoTime();
    put.apply(request).whenComplete((r, e) -> {
      if (e != null) {
        done.completeExceptionally(e);
        return;
      }
      latencies[i] = System.nanoTime() - sent;
      if (finished.incrementAndGet() == total) {
        done.complete(null);
      }
      next(put, issued, finished, total, latencies, value, done);
    });
  }
}
