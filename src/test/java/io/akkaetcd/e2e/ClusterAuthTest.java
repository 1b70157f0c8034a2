package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Auth in a 3-member cluster: users, roles and the enabled flag set up through one member are
 * enforced by all (they are Raft entries); a token from any member works (etcdctl --user
 * authenticates on the member it talks to); jetcd with a user and password writes; the state
 * survives the leader's kill -9; and a member added after the logs were truncated
 * (--snapshot-count 100) gets it in the leader's snapshot and enforces the same permissions.
 */
class ClusterAuthTest {
  private static final String ROOT = "root:pw";
  private static final String ALICE = "alice:apw";
  private static final String DENIED = "etcdserver: permission denied";
  private static final Pattern HASH = Pattern.compile("\"hash\":(\\d+)");
  private static final Pattern REVISION = Pattern.compile("\"revision\":(\\d+)");

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES) // four member starts and a snapshot, on a loaded machine
  void authIsReplicatedDurableAndSnapshotted() throws Exception {
    List<String> flags = List.of("--snapshot-count", "100");
    List<ServerProcess> members = ServerProcess.cluster(ServerProcess.Kind.AKKA_ETCD, 3, flags);
    List<ServerProcess> all = new ArrayList<>(members);
    try {
      ServerProcess leader = ServerProcess.leader(members);
      AuthSetup.enable(leader.endpoint());
      // enabling again is a no-op, for root only
      assertEquals("Authentication Enabled",
          Etcdctl.run(leader.endpoint(), "--user", ROOT, "auth", "enable").stdout().trim());

      // Every member enforces it, and authenticates alice itself.
      for (ServerProcess m : members) {
        Etcdctl.Result put = Etcdctl.run(m.endpoint(), "--user", ALICE, "put", "a/" + m.name(), "v");
        assertEquals(0, put.exit(), m.name() + ":\n" + put.all());
        assertDenied(m, "etcdserver: user name is empty", "get", "a/" + m.name());
        assertDenied(m, DENIED, "--user", ALICE, "get", "b");
        assertDenied(m, "etcdserver: authentication failed, invalid user ID or password",
            "--user", "alice:wrong", "get", "a/x");
      }

      authenticateWaitsOutAnElection(leader, members);

      // jetcd with a user and password, past the members' log length: the next member snapshots.
      try (Client client = Client.builder().endpoints(members.stream().map(ServerProcess::clientUrl)
          .toArray(String[]::new)).user(bytes("alice")).password(bytes("apw")).build()) {
        for (int batch = 0; batch < 60; batch++) { // 3,000 puts: journal snapshots trim the logs
          List<CompletableFuture<?>> puts = new ArrayList<>();
          for (int i = 0; i < 50; i++) {
            puts.add(client.getKVClient().put(bytes(String.format("a/k%04d", batch * 50 + i)), bytes("v")));
          }
          CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        }
        assertEquals(3000, client.getKVClient().get(bytes("a/k"), GetOption.builder().isPrefix(true).withCountOnly(true)
            .build()).get(10, TimeUnit.SECONDS).getCount());
        ExecutionException denied = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
            () -> client.getKVClient().put(bytes("b"), bytes("v")).get(10, TimeUnit.SECONDS));
        assertTrue(String.valueOf(denied.getCause().getMessage()).contains(DENIED), denied.toString());
      }

      // kill -9 of the leader: it comes back with users, roles and auth on.
      leader.kill();
      leader.start("--user", ROOT);
      awaitConverged(members);
      assertDenied(leader, "etcdserver: user name is empty", "get", "a/k0001");
      assertDenied(leader, DENIED, "--user", ALICE, "get", "b");
      assertEquals("v", Etcdctl.run(leader.endpoint(), "--user", ALICE, "get", "a/k0001", "--print-value-only")
          .stdout().trim());

      // A member added now catches up from a snapshot, auth included. MemberAdd needs root.
      String endpoints = String.join(",", members.stream().map(ServerProcess::endpoint).toList());
      ServerProcess joiner = ServerProcess.joining(ServerProcess.Kind.AKKA_ETCD, "m4", members, flags);
      all.add(joiner);
      assertDenied(members.get(0), DENIED, "--user", ALICE, "member", "add", "m4", "--peer-urls=" + joiner.peerUrl());
      Etcdctl.Result added = ServerProcess.reconfigure(endpoints, "--user", ROOT, "member", "add", "m4",
          "--peer-urls=" + joiner.peerUrl());
      assertEquals(0, added.exit(), added.all());
      joiner.start("--user", ROOT);
      awaitConverged(all);
      joiner.awaitLogged("restored its log from a snapshot", Duration.ofSeconds(10));
      assertDenied(joiner, DENIED, "--user", ALICE, "get", "b");
      assertDenied(joiner, "etcdserver: user name is empty", "get", "a/k0001", "--consistency=s");
      Etcdctl.Result read = Etcdctl.run(joiner.endpoint(), "--user", ALICE, "get", "a/k0299", "--print-value-only",
          "--consistency=s");
      assertEquals("v", read.stdout().trim(), read.all());
      Etcdctl.Result users = Etcdctl.run(joiner.endpoint(), "--user", ROOT, "user", "list");
      assertEquals("alice\nroot", users.stdout().trim(), users.all());
    } finally {
      all.forEach(ServerProcess::close);
    }
  }

  /**
   * An Authenticate that reaches a member without a leader waits for one instead of failing with
   * "no leader": jetcd makes any failed Authenticate Unauthenticated, which it does not retry (a
   * watch it was re-creating with a fresh token ended for good in SecureChaosTest).
   */
  private static void authenticateWaitsOutAnElection(ServerProcess leader, List<ServerProcess> members)
      throws Exception {
    ServerProcess follower = members.stream().filter(m -> m != leader).findFirst().orElseThrow();
    Set<String> others = new HashSet<>();
    members.stream().filter(m -> m != follower).forEach(m -> {
      others.add(m.name());
      m.cutOff(Set.of(follower.name()));
    });
    follower.cutOff(others);
    follower.awaitNoLeader();
    long before = authenticatesStarted(follower);
    try (Client alone = Client.builder().endpoints(follower.clientUrl()).user(bytes("alice")).password(bytes("apw"))
        .build()) {
      CompletableFuture<io.etcd.jetcd.kv.GetResponse> read = alone.getKVClient().get(bytes("a/" + follower.name()),
          GetOption.builder().withSerializable(true).build());
      Instant deadline = Instant.now().plus(Duration.ofSeconds(10));
      while (authenticatesStarted(follower) == before && !read.isDone()) {
        assertTrue(Instant.now().isBefore(deadline), "jetcd sent no Authenticate to " + follower.name());
      }
      members.forEach(m -> m.cutOff(Set.of()));
      assertEquals(1, read.get(10, TimeUnit.SECONDS).getCount(), "alice's read once the follower has a leader");
    }
  }

  private static final Pattern AUTHENTICATES_STARTED =
      Pattern.compile("(?m)^grpc_server_started_total\\{[^}]*grpc_method=\"Authenticate\"[^}]*} (\\d+)");

  private static final java.net.http.HttpClient HTTP = java.net.http.HttpClient.newHttpClient();

  /** The Authenticate calls {@code m} has started, from its /metrics. */
  private static long authenticatesStarted(ServerProcess m) throws Exception {
    String text = HTTP.send(java.net.http.HttpRequest.newBuilder(
        java.net.URI.create(m.clientUrl() + "/metrics")).timeout(Duration.ofSeconds(5)).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    Matcher started = AUTHENTICATES_STARTED.matcher(text);
    return started.find() ? Long.parseLong(started.group(1)) : 0;
  }

  private static void assertDenied(ServerProcess m, String error, String... args) {
    Etcdctl.Result r = Etcdctl.run(m.endpoint(), args);
    assertTrue(r.exit() != 0 && r.stderr().contains("Error: " + error), m.name() + " " + String.join(" ", args)
        + ":\n" + r.all());
  }

  /** {@link ServerProcess#awaitConverged}, as root: HashKV needs root while auth is on. */
  private static void awaitConverged(List<ServerProcess> members) {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    Set<String> hashes = Set.of();
    while (Instant.now().isBefore(deadline)) {
      hashes = new HashSet<>();
      for (ServerProcess m : members) {
        String out = Etcdctl.run(m.endpoint(), "--user", ROOT, "endpoint", "hashkv", "-w", "json",
            "--command-timeout=2s").stdout();
        Matcher hash = HASH.matcher(out);
        Matcher revision = REVISION.matcher(out);
        hashes.add(hash.find() && revision.find() ? hash.group(1) + "@" + revision.group(1) : "none");
      }
      if (hashes.size() == 1 && !hashes.contains("none")) {
        return;
      }
    }
    throw new AssertionError("members did not converge: " + hashes);
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
