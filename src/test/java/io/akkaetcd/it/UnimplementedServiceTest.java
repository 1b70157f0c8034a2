package io.akkaetcd.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A method the server does not serve must answer gRPC status UNIMPLEMENTED (12), as grpc-go
 * does, never a bare HTTP 404 (which grpc-java would report as UNIMPLEMENTED too, but with an
 * "HTTP status code 404" description, so the description is checked as well). Calls are made
 * with grpc-java and made-up method descriptors on raw bytes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UnimplementedServiceTest {
  private ServerUnderTest server;
  private ManagedChannel channel;

  @BeforeAll
  void start() {
    server = ServerUnderTest.candidate().start(List.of());
    channel = JetcdKvTest.channel(server);
  }

  @AfterAll
  void stop() throws InterruptedException {
    try {
      if (channel != null) {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    } finally {
      if (server != null) {
        server.close();
      }
    }
  }

  @Test
  void theChannelSpeaksGrpcToAKnownService() {
    // grpc.health.v1.Health/Check with an empty request: SERVING is field 1 = 1
    byte[] response = ClientCalls.blockingUnaryCall(channel,
        method("grpc.health.v1.Health/Check", MethodDescriptor.MethodType.UNARY),
        options(), new byte[0]);
    assertArrayEquals(new byte[] {0x08, 0x01}, response);
  }

  @Test
  void unknownServiceIsUnimplemented() {
    assertUnimplemented(() -> ClientCalls.blockingUnaryCall(channel,
        method("no.such.Service/Frobnicate", MethodDescriptor.MethodType.UNARY),
        options(), new byte[] {0x0a, 0x01, 0x61}));
  }

  @Test
  void unknownMethodOfAKnownServiceIsUnimplemented() {
    assertUnimplemented(() -> ClientCalls.blockingUnaryCall(channel,
        method("etcdserverpb.KV/Frobnicate", MethodDescriptor.MethodType.UNARY),
        options(), new byte[0]));
  }

  @Test
  void unknownStreamingMethodIsUnimplemented() {
    assertUnimplemented(() -> {
      Iterator<byte[]> it = ClientCalls.blockingServerStreamingCall(channel,
          method("no.such.Watcher/Follow", MethodDescriptor.MethodType.SERVER_STREAMING),
          options(), new byte[0]);
      it.hasNext();
    });
  }

  private static void assertUnimplemented(Runnable call) {
    StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call::run);
    Status status = e.getStatus();
    assertEquals(Status.Code.UNIMPLEMENTED, status.getCode(), String.valueOf(status));
    String description = String.valueOf(status.getDescription());
    if (description.contains("HTTP status code")) {
      throw new AssertionError("answered by HTTP, not gRPC: " + status);
    }
  }

  private static CallOptions options() {
    return CallOptions.DEFAULT.withDeadlineAfter(Jetcd.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
  }

  private static MethodDescriptor<byte[], byte[]> method(String fullName,
      MethodDescriptor.MethodType type) {
    return MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(type)
        .setFullMethodName(fullName)
        .setRequestMarshaller(RAW)
        .setResponseMarshaller(RAW)
        .build();
  }

  private static final MethodDescriptor.Marshaller<byte[]> RAW =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try {
            return stream.readAllBytes();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };
}
