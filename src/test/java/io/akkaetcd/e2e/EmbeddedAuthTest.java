package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.ByteString;
import io.akkaetcd.embed.EtcdClient;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.errors.EtcdException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The in-process client under auth: anonymous by default, refused as a gRPC client without a
 * user; {@code asUser} acts as the named user, checked against its roles like any caller.
 */
class EmbeddedAuthTest {
  @Test
  void inProcessCallsActAsTheirClientsUser() throws Exception {
    try (EmbeddedMember member = new EmbeddedMember()) {
      String endpoint = member.url().replace("http://", "");
      AuthSetup.enable(endpoint);
      EtcdClient anonymous = member.server().client();
      EtcdClient alice = anonymous.asUser("alice");
      alice.kv().put(b("a/1"), b("v")).toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertEquals(b("v"), alice.kv().get(b("a/1")).toCompletableFuture().get(10, TimeUnit.SECONDS).getKvs(0).getValue());
      assertError(EtcdError.PERMISSION_DENIED, alice.kv().put(b("b"), b("v")));
      assertError(EtcdError.USER_EMPTY, anonymous.kv().get(b("a/1")));
      assertError(EtcdError.PERMISSION_DENIED, anonymous.asUser("nobody").kv().get(b("a/1")));
      assertEquals(b("v"), anonymous.asUser("root").kv().get(b("a/1")).toCompletableFuture().get(10, TimeUnit.SECONDS)
          .getKvs(0).getValue());
    }
  }

  private static void assertError(EtcdError expected, CompletionStage<?> call) {
    ExecutionException e = assertThrows(ExecutionException.class, () -> call.toCompletableFuture().get(10, TimeUnit.SECONDS));
    assertEquals(expected, ((EtcdException) e.getCause()).error(), e.toString());
  }

  private static ByteString b(String s) {
    return ByteString.copyFromUtf8(s);
  }
}
