package io.akkaetcd.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Unknown gRPC services and methods answer UNIMPLEMENTED, through a hand-made raw-bytes call. */
@ExtendWith(LogOnFailure.class)
class UnimplementedTest {
  private static ServerProcess server;
  private static ManagedChannel channel;

  private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
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

  @BeforeAll
  static void start() {
    server = Targets.underTest();
    try {
      server.start();
    } catch (RuntimeException | Error e) {
      server.close();
      throw e;
    }
    URI url = URI.create(server.clientUrl());
    channel = ManagedChannelBuilder.forAddress(url.getHost(), url.getPort()).usePlaintext().build();
  }

  @AfterAll
  static void stop() throws InterruptedException {
    try {
      if (channel != null) {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
    } finally {
      if (server != null) {
        server.close();
      }
    }
  }

  private static byte[] unary(String fullMethod, byte[] request) {
    MethodDescriptor<byte[], byte[]> md = MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(fullMethod)
        .setRequestMarshaller(BYTES)
        .setResponseMarshaller(BYTES)
        .build();
    return ClientCalls.blockingUnaryCall(channel, md,
        CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS), request);
  }

  private static Status failure(String fullMethod, byte[] request) {
    return assertThrows(StatusRuntimeException.class, () -> unary(fullMethod, request),
        fullMethod).getStatus();
  }

  @Test
  void unknownService() {
    assertEquals(Status.Code.UNIMPLEMENTED, failure("nope.Nothing/Call", new byte[0]).getCode());
    assertEquals(Status.Code.UNIMPLEMENTED, failure("etcdserverpb.Nope/Range", new byte[0]).getCode());
  }

  @Test
  void unknownMethodOfKnownService() {
    assertEquals(Status.Code.UNIMPLEMENTED, failure("etcdserverpb.KV/Nope", new byte[0]).getCode());
    assertEquals(Status.Code.UNIMPLEMENTED,
        failure("etcdserverpb.Maintenance/Nope", new byte[] {0x0a, 0x01, 0x61}).getCode());
    assertEquals(Status.Code.UNIMPLEMENTED, failure("etcdserverpb.Cluster/Nope", new byte[0]).getCode());
  }

  @Test
  void knownMethodsStillAnswerOnTheSameChannel() {
    // RangeRequest{key: "a"}: field 1, length 1
    byte[] range = unary("etcdserverpb.KV/Range", new byte[] {0x0a, 0x01, 'a'});
    assertEquals(0x0a, range[0], "a RangeResponse starts with its header (field 1)");
    Status empty = failure("etcdserverpb.KV/Range", new byte[0]);
    assertEquals(Status.Code.INVALID_ARGUMENT, empty.getCode());
    assertEquals("etcdserver: key is not provided", empty.getDescription());
    assertEquals(Status.Code.UNIMPLEMENTED, failure("etcdserverpb.KV/Nope", new byte[0]).getCode());
  }
}
