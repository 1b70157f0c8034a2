package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.api.AuthGrpc;
import io.etcd.jetcd.api.AuthenticateRequest;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.PutRequest;
import io.etcd.jetcd.api.RangeRequest;
import io.etcd.jetcd.api.WatchCreateRequest;
import io.etcd.jetcd.api.WatchGrpc;
import io.etcd.jetcd.api.WatchRequest;
import io.etcd.jetcd.api.WatchResponse;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Tokens over the wire, as a gRPC client sees them: Authenticate answers etcd's simple token
 * (16 letters, a dot, the Raft index), metadata {@code token} makes the call act as its user, and
 * the token stops working with etcd's "invalid auth token" once the user's password changes or
 * auth is turned off and on again. A watch outside the user's permissions is answered created and
 * canceled, not failed.
 */
class AuthTokensTest {
  private static final String INVALID = "etcdserver: invalid auth token";

  @Test
  void tokensStandForTheirUserUntilPasswordChangeOrAuthDisable() throws Exception {
    try (ServerProcess server = ServerProcess.start(ServerProcess.Kind.AKKA_ETCD, List.of())) {
      AuthSetup.enable(server.endpoint());
      ManagedChannel channel = ManagedChannelBuilder.forTarget(server.endpoint()).usePlaintext().build();
      try {
        AuthGrpc.AuthBlockingStub auth = AuthGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
        StatusRuntimeException wrong = assertThrows(StatusRuntimeException.class, () -> auth.authenticate(
            AuthenticateRequest.newBuilder().setName("alice").setPassword("nope").build()));
        assertStatus(wrong, Status.Code.INVALID_ARGUMENT, "etcdserver: authentication failed, invalid user ID or password");

        String token = authenticate(auth);
        assertTrue(token.matches("[a-zA-Z]{16}\\.\\d+"), token);
        kv(channel, token).put(put("a/1"));
        assertStatus(assertThrows(StatusRuntimeException.class, () -> kv(channel, token).put(put("b"))),
            Status.Code.PERMISSION_DENIED, "etcdserver: permission denied");
        assertStatus(assertThrows(StatusRuntimeException.class, () -> kv(channel, "bogusbogusbogusb.3").put(put("a/1"))),
            Status.Code.UNAUTHENTICATED, INVALID);
        assertStatus(assertThrows(StatusRuntimeException.class, () -> kv(channel, null).range(range("a/1"))),
            Status.Code.INVALID_ARGUMENT, "etcdserver: user name is empty");
        assertEquals(1, kv(channel, token).range(range("a/1")).getCount());

        WatchResponse denied = firstWatchResponse(channel, token, "b");
        assertTrue(denied.getCreated() && denied.getCanceled(), denied.toString());
        assertEquals(-1, denied.getWatchId());
        assertEquals("rpc error: code = PermissionDenied desc = etcdserver: permission denied", denied.getCancelReason());
        WatchResponse allowed = firstWatchResponse(channel, token, "a/1");
        assertTrue(allowed.getCreated() && !allowed.getCanceled(), allowed.toString());

        // A password change drops the user's tokens.
        Etcdctl.Result passwd = Etcdctl.run(server.endpoint(), "apw2\n",
            List.of("--user", "root:pw", "user", "passwd", "alice", "--interactive=false"));
        assertEquals(0, passwd.exit(), passwd.all());
        assertStatus(assertThrows(StatusRuntimeException.class, () -> kv(channel, token).range(range("a/1"))),
            Status.Code.UNAUTHENTICATED, INVALID);

        // Disabling auth drops every token: after it is on again the old one is invalid.
        String second = authenticate(AuthGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS), "apw2");
        assertEquals(1, kv(channel, second).range(range("a/1")).getCount());
        assertEquals(0, Etcdctl.run(server.endpoint(), "--user", "root:pw", "auth", "disable").exit());
        assertEquals(0, Etcdctl.run(server.endpoint(), "--user", "root:pw", "auth", "enable").exit());
        assertStatus(assertThrows(StatusRuntimeException.class, () -> kv(channel, second).range(range("a/1"))),
            Status.Code.UNAUTHENTICATED, INVALID);
      } finally {
        channel.shutdownNow();
      }
    }
  }

  /**
   * --auth-token jwt: Authenticate answers an RS256 JWT, any call bearing it acts as its user,
   * and any auth change since it was signed makes it "revision of auth store is old" (the
   * client then authenticates again).
   */
  @Test
  void jwtTokensCarryTheirUserAndAuthRevision() throws Exception {
    java.nio.file.Path keys = java.nio.file.Files.createTempDirectory("jwt-keys");
    java.security.KeyPairGenerator generator = java.security.KeyPairGenerator.getInstance("RSA");
    generator.initialize(2048);
    java.security.KeyPair pair = generator.generateKeyPair();
    java.nio.file.Path priv = keys.resolve("key.pem");
    java.nio.file.Path pub = keys.resolve("key.pub.pem");
    java.nio.file.Files.writeString(priv, pem("PRIVATE KEY", pair.getPrivate().getEncoded()));
    java.nio.file.Files.writeString(pub, pem("PUBLIC KEY", pair.getPublic().getEncoded()));
    try (ServerProcess server = ServerProcess.start(ServerProcess.Kind.AKKA_ETCD, List.of("--auth-token",
        "jwt,pub-key=" + pub + ",priv-key=" + priv + ",sign-method=RS256,ttl=5m"))) {
      AuthSetup.enable(server.endpoint());
      ManagedChannel channel = ManagedChannelBuilder.forTarget(server.endpoint()).usePlaintext().build();
      try {
        String token = authenticate(AuthGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS));
        assertEquals(3, token.split("\\.").length, token);
        kv(channel, token).put(put("a/1"));
        assertEquals(1, kv(channel, token).range(range("a/1")).getCount());
        assertStatus(assertThrows(StatusRuntimeException.class, () -> kv(channel, token).range(range("b"))),
            Status.Code.PERMISSION_DENIED, "etcdserver: permission denied");
        assertEquals(0, Etcdctl.run(server.endpoint(), "--user", "root:pw", "role", "add", "r2").exit());
        assertStatus(assertThrows(StatusRuntimeException.class, () -> kv(channel, token).range(range("a/1"))),
            Status.Code.INVALID_ARGUMENT, "etcdserver: revision of auth store is old");
        assertStatus(assertThrows(StatusRuntimeException.class, () -> kv(channel, token).put(put("a/1"))),
            Status.Code.INVALID_ARGUMENT, "etcdserver: revision of auth store is old");
        String fresh = authenticate(AuthGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS));
        assertEquals(1, kv(channel, fresh).range(range("a/1")).getCount());
      } finally {
        channel.shutdownNow();
      }
    } finally {
      ServerProcess.deleteTree(keys);
    }
  }

  /**
   * A token the member does not hold (a simple token from before its restart, say) on the two
   * streams: etcd 3.4 checks a watch's token only when a watch is created, and a keep-alive's not
   * at all. Differential: the first answer (or the stream's error) of each, etcd 3.4.23 and ours.
   */
  @Test
  void unknownTokenOnStreamsAsEtcd34() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isExecutable(java.nio.file.Path.of("/usr/bin/etcd")),
        "etcd is not installed (Debian's etcd-server)");
    java.util.Map<String, String> etcd = streamsWithUnknownToken(ServerProcess.Kind.ETCD);
    java.util.Map<String, String> ours = streamsWithUnknownToken(ServerProcess.Kind.AKKA_ETCD);
    assertEquals(etcd, ours);
  }

  /**
   * Watches created back to back on one stream, the middle one outside alice's permissions: each
   * answered in turn (clients match a created answer to their oldest pending create), the denied
   * one created and canceled. Differential: etcd 3.4.23 and ours.
   */
  @Test
  void aDeniedCreateIsAnsweredInTurnAsEtcd34() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isExecutable(java.nio.file.Path.of("/usr/bin/etcd")),
        "etcd is not installed (Debian's etcd-server)");
    List<String> etcd = createsInTurn(ServerProcess.Kind.ETCD);
    assertEquals(List.of("created=true canceled=false reason=", "created=true canceled=true reason=rpc error: code = PermissionDenied desc = etcdserver: permission denied",
        "created=true canceled=false reason="), etcd);
    assertEquals(etcd, createsInTurn(ServerProcess.Kind.AKKA_ETCD));
  }

  private static List<String> createsInTurn(ServerProcess.Kind kind) throws Exception {
    try (ServerProcess server = ServerProcess.start(kind, List.of())) {
      AuthSetup.enable(server.endpoint());
      ManagedChannel channel = ManagedChannelBuilder.forTarget(server.endpoint()).usePlaintext().build();
      try {
        String token = authenticate(AuthGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS));
        java.util.concurrent.BlockingQueue<WatchResponse> answers = new java.util.concurrent.LinkedBlockingQueue<>();
        io.grpc.stub.StreamObserver<WatchRequest> requests = WatchGrpc.newStub(channel)
            .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(tokenHeader(token)))
            .watch(new io.grpc.stub.StreamObserver<>() {
              @Override
              public void onNext(WatchResponse r) {
                answers.add(r);
              }

              @Override
              public void onError(Throwable t) { }

              @Override
              public void onCompleted() { }
            });
        List<String> out = new java.util.ArrayList<>();
        try {
          for (String key : List.of("a/1", "b", "a/2")) {
            requests.onNext(WatchRequest.newBuilder().setCreateRequest(WatchCreateRequest.newBuilder()
                .setKey(ByteString.copyFromUtf8(key))).build());
          }
          for (int i = 0; i < 3; i++) {
            WatchResponse w = answers.poll(10, TimeUnit.SECONDS);
            assertTrue(w != null, kind + ": " + out.size() + " answers only: " + out);
            out.add("created=" + w.getCreated() + " canceled=" + w.getCanceled() + " reason=" + w.getCancelReason());
          }
        } finally {
          requests.onCompleted();
        }
        return out;
      } finally {
        channel.shutdownNow();
      }
    }
  }

  private static java.util.Map<String, String> streamsWithUnknownToken(ServerProcess.Kind kind) throws Exception {
    String unknown = "bogusbogusbogusb.3";
    java.util.Map<String, String> out = new java.util.LinkedHashMap<>();
    try (ServerProcess server = ServerProcess.start(kind, List.of())) {
      AuthSetup.enable(server.endpoint());
      ManagedChannel channel = ManagedChannelBuilder.forTarget(server.endpoint()).usePlaintext().build();
      try {
        out.put("watch", outcome(() -> firstWatchResponse(channel, unknown, "a/1")));
        String token = authenticate(AuthGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS));
        long lease = io.etcd.jetcd.api.LeaseGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
            .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(tokenHeader(token)))
            .leaseGrant(io.etcd.jetcd.api.LeaseGrantRequest.newBuilder().setTTL(60).build()).getID();
        out.put("keep-alive", outcome(() -> firstKeepAlive(channel, unknown, lease) == lease ? "renewed" : "other lease"));
      } finally {
        channel.shutdownNow();
      }
    }
    return out;
  }

  /** The answer, described without what differs between any two servers (ids, revisions). */
  private static String outcome(java.util.concurrent.Callable<Object> call) {
    try {
      Object r = call.call();
      if (r instanceof WatchResponse w) {
        return "created=" + w.getCreated() + " canceled=" + w.getCanceled() + " id=" + w.getWatchId()
            + " reason=" + w.getCancelReason();
      }
      return String.valueOf(r);
    } catch (java.util.concurrent.ExecutionException e) {
      Status s = Status.fromThrowable(e.getCause());
      return "error " + s.getCode() + ": " + s.getDescription();
    } catch (Exception e) {
      return "failed: " + e;
    }
  }

  private static long firstKeepAlive(ManagedChannel channel, String token, long lease) throws Exception {
    return FirstAnswer.<io.etcd.jetcd.api.LeaseKeepAliveRequest, io.etcd.jetcd.api.LeaseKeepAliveResponse>of(
        answers -> io.etcd.jetcd.api.LeaseGrpc.newStub(channel)
            .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(tokenHeader(token))).leaseKeepAlive(answers),
        io.etcd.jetcd.api.LeaseKeepAliveRequest.newBuilder().setID(lease).build()).getID();
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN " + type + "-----\n" + java.util.Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der)
        + "\n-----END " + type + "-----\n";
  }

  private static String authenticate(AuthGrpc.AuthBlockingStub auth) {
    return authenticate(auth, "apw");
  }

  private static String authenticate(AuthGrpc.AuthBlockingStub auth, String password) {
    return auth.authenticate(AuthenticateRequest.newBuilder().setName("alice").setPassword(password).build()).getToken();
  }

  private static KVGrpc.KVBlockingStub kv(ManagedChannel channel, String token) {
    KVGrpc.KVBlockingStub stub = KVGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
    return token == null ? stub : stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(tokenHeader(token)));
  }

  private static Metadata tokenHeader(String token) {
    Metadata md = new Metadata();
    md.put(Metadata.Key.of("token", Metadata.ASCII_STRING_MARSHALLER), token);
    return md;
  }

  private static WatchResponse firstWatchResponse(ManagedChannel channel, String token, String key) throws Exception {
    return FirstAnswer.of(answers -> WatchGrpc.newStub(channel)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(tokenHeader(token))).watch(answers),
        WatchRequest.newBuilder().setCreateRequest(WatchCreateRequest.newBuilder()
            .setKey(ByteString.copyFromUtf8(key))).build());
  }

  private static PutRequest put(String key) {
    return PutRequest.newBuilder().setKey(ByteString.copyFromUtf8(key)).setValue(ByteString.copyFromUtf8("v")).build();
  }

  private static RangeRequest range(String key) {
    return RangeRequest.newBuilder().setKey(ByteString.copyFromUtf8(key)).build();
  }

  private static void assertStatus(StatusRuntimeException e, Status.Code code, String message) {
    assertEquals(code, e.getStatus().getCode(), e.toString());
    assertEquals(message, e.getStatus().getDescription());
  }
}
