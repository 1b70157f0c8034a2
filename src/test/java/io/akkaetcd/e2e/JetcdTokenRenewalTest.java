package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.api.AuthGrpc;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.AuthenticateRequest;
import io.etcd.jetcd.api.RangeRequest;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * jetcd with a user and password gets a new token by itself once its simple token has expired
 * (--auth-token-ttl) or was dropped by a password change, and fails as etcd makes it fail once the
 * password it holds is no longer the user's: played against etcd 3.4 and akka-etcd, with the same
 * results required.
 */
class JetcdTokenRenewalTest {
  private static final List<String> FLAGS = List.of("--auth-token-ttl", "2", "--bcrypt-cost", "4");

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void jetcdRenewsItsTokenAfterExpiryAndPasswordChangeAsWithEtcd() throws Exception {
    List<String> etcd = play(ServerProcess.Kind.ETCD);
    List<String> ours = play(ServerProcess.Kind.AKKA_ETCD);
    assertEquals(etcd, ours);
    assertEquals("put a/1: ok", ours.get(0));
    assertEquals("put a/2 after expiry: ok", ours.get(1));
    assertEquals("put a/3 after passwd to the same: ok", ours.get(2));
    // jetcd's re-authentication with the old password is refused: the put fails, as with etcd
    assertTrue(ours.get(3).startsWith("put a/4 after passwd to another: failed"), ours.get(3));
  }

  private static List<String> play(ServerProcess.Kind kind) throws Exception {
    List<String> seen = new ArrayList<>();
    try (ServerProcess server = ServerProcess.start(kind, FLAGS)) {
      AuthSetup.enable(server.endpoint());
      ManagedChannel channel = ManagedChannelBuilder.forTarget(server.endpoint()).usePlaintext().build();
      try (Client client = Client.builder().endpoints(server.clientUrl()).user(bytes("alice")).password(bytes("apw"))
          .build()) {
        seen.add("put a/1: " + put(client, "a/1"));
        awaitExpiryOfTokensUsedSoFar(channel);
        seen.add("put a/2 after expiry: " + put(client, "a/2"));
        passwd(server, "apw");
        seen.add("put a/3 after passwd to the same: " + put(client, "a/3"));
        passwd(server, "apw2");
        seen.add("put a/4 after passwd to another: " + put(client, "a/4"));
      } finally {
        channel.shutdownNow();
      }
    }
    return seen;
  }

  /**
   * Tokens are sliding: each use extends one, so expiry is seen on tokens used exactly once. Made
   * before any is tried, each outlives every token last used before it; the first refused one
   * shows that jetcd's, last used before them all, has expired.
   */
  private static void awaitExpiryOfTokensUsedSoFar(ManagedChannel channel) throws InterruptedException {
    AuthGrpc.AuthBlockingStub auth = AuthGrpc.newBlockingStub(channel);
    List<String> probes = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      probes.add(auth.withDeadlineAfter(10, TimeUnit.SECONDS).authenticate(
          AuthenticateRequest.newBuilder().setName("alice").setPassword("apw").build()).getToken());
    }
    for (String token : probes) {
      Metadata md = new Metadata();
      md.put(Metadata.Key.of("token", Metadata.ASCII_STRING_MARSHALLER), token);
      try {
        KVGrpc.newBlockingStub(channel).withInterceptors(MetadataUtils.newAttachHeadersInterceptor(md))
            .withDeadlineAfter(10, TimeUnit.SECONDS)
            .range(RangeRequest.newBuilder().setKey(ByteString.copyFromUtf8("a/1")).build());
      } catch (StatusRuntimeException e) {
        assertTrue(String.valueOf(e.getStatus().getDescription()).contains("invalid auth token"), e.toString());
        return;
      }
      Thread.sleep(100); // the probes' pace: 150 × 0.1 s outlasts a 2 s TTL and etcd's 1 s sweep
    }
    fail("no probe token expired");
  }

  private static String put(Client client, String key) throws InterruptedException {
    try {
      client.getKVClient().put(bytes(key), bytes("v")).get(30, TimeUnit.SECONDS);
      return "ok";
    } catch (ExecutionException e) {
      return "failed: " + e.getCause().getMessage();
    } catch (java.util.concurrent.TimeoutException e) {
      return "timed out";
    }
  }

  private static void passwd(ServerProcess server, String password) {
    Etcdctl.Result r = Etcdctl.run(server.endpoint(), password + "\n",
        List.of("--user", "root:pw", "user", "passwd", "alice", "--interactive=false"));
    assertEquals(0, r.exit(), r.all());
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
