package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Election;
import io.etcd.jetcd.Lock;
import io.etcd.jetcd.api.ElectionGrpc;
import io.etcd.jetcd.api.LeaderRequest;
import io.etcd.jetcd.api.ProclaimRequest;
import io.etcd.jetcd.api.ResignRequest;
import io.etcd.jetcd.api.lock.LockGrpc;
import io.etcd.jetcd.api.lock.LockRequest;
import io.etcd.jetcd.election.CampaignResponse;
import io.etcd.jetcd.election.LeaderKey;
import io.etcd.jetcd.election.LeaderResponse;
import io.etcd.jetcd.lock.LockResponse;
import io.etcd.jetcd.options.GetOption;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * jetcd's Lock and Election clients (and raw gRPC stubs, for exact status codes) against a fresh
 * real etcd and a fresh akka-etcd: each scenario writes a transcript of what a client observes
 * (keys with lease ids numbered by grant order, revisions, values, error codes and texts), and
 * the two transcripts must be equal. Each scenario also asserts its own expectations (a waiter
 * blocks until its predecessor goes) so a wrong answer shared by both cannot pass unnoticed.
 */
class JetcdLockElectionDifferentialTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  private static ServerProcess etcd;
  private static ServerProcess akka;

  @BeforeAll
  static void start() {
    etcd = ServerProcess.start(ServerProcess.Kind.ETCD, List.of());
    akka = ServerProcess.start(ServerProcess.Kind.AKKA_ETCD, List.of());
  }

  @AfterAll
  static void stop() {
    if (etcd != null) {
      etcd.close();
    }
    if (akka != null) {
      akka.close();
    }
  }

  @Test
  void secondContenderWaitsForTheFirstToUnlock() throws Exception {
    assertSameTranscript(s -> {
      Lock lock = s.client.getLockClient();
      long a = s.grant(30);
      long b = s.grant(30);
      LockResponse first = get(lock.lock(bytes("lk"), a));
      s.log("first holds " + s.key(first.getKey()) + " at " + s.rev(s.createRevision(first.getKey())));
      CompletableFuture<LockResponse> second = lock.lock(bytes("lk"), b);
      JetcdLeaseTest.await("the second contender's key", TIMEOUT, () -> s.count("lk/") == 2);
      assertFalse(second.isDone(), "the second contender got the lock while the first held it");
      s.log("unlock " + s.key(first.getKey()) + " at revision " + s.rev(get(lock.unlock(first.getKey())).getHeader().getRevision()));
      LockResponse next = get(second);
      s.log("second holds " + s.key(next.getKey()) + " at " + s.rev(s.createRevision(next.getKey()))
          + ", header revision " + s.rev(next.getHeader().getRevision()));
      get(lock.unlock(next.getKey()));
      s.log("keys left " + s.count("lk/"));
    });
  }

  @Test
  void revokingTheHoldersLeaseHandsTheLockOn() throws Exception {
    assertSameTranscript(s -> {
      Lock lock = s.client.getLockClient();
      long holder = s.grant(30);
      long waiter = s.grant(30);
      LockResponse held = get(lock.lock(bytes("lr"), holder));
      s.log("holder " + s.key(held.getKey()));
      CompletableFuture<LockResponse> waiting = lock.lock(bytes("lr"), waiter);
      JetcdLeaseTest.await("the waiter's key", TIMEOUT, () -> s.count("lr/") == 2);
      assertFalse(waiting.isDone());
      get(s.client.getLeaseClient().revoke(holder));
      LockResponse next = get(waiting);
      s.log("after revoke " + s.key(next.getKey()) + " at header revision " + s.rev(next.getHeader().getRevision()));
      s.log("same lock again with the held lease returns " + s.key(get(lock.lock(bytes("lr"), waiter)).getKey()));
    });
  }

  @Test
  void leaseZeroGrantsAnUnrenewedSessionLease() throws Exception {
    assertSameTranscript(s -> {
      LockResponse held = get(s.client.getLockClient().lock(bytes("lz"), 0));
      String key = held.getKey().toString(StandardCharsets.UTF_8);
      long lease = Long.parseLong(key.substring("lz/".length()), 16);
      long granted = get(s.client.getLeaseClient().timeToLive(lease, io.etcd.jetcd.options.LeaseOption.DEFAULT))
          .getGrantedTTL();
      s.log("lease 0 locks under a lease of " + granted + " s");
      CampaignResponse won = get(s.client.getElectionClient().campaign(bytes("ez"), 0, bytes("z")));
      s.log("campaign with lease 0 leads with a lease of " + get(s.client.getLeaseClient()
          .timeToLive(won.getLeader().getLease(), io.etcd.jetcd.options.LeaseOption.DEFAULT)).getGrantedTTL() + " s");
      get(s.client.getLeaseClient().revoke(lease));
      get(s.client.getLeaseClient().revoke(won.getLeader().getLease()));
      s.log("keys left " + s.count("lz/") + " " + s.count("ez/"));
    });
  }

  @Test
  void campaigningAgainWithAnotherValueProclaimsIt() throws Exception {
    assertSameTranscript(s -> {
      Election election = s.client.getElectionClient();
      long lease = s.grant(30);
      LeaderKey first = get(election.campaign(bytes("rc"), lease, bytes("a"))).getLeader();
      List<String> observed = s.observe("rc");
      JetcdLeaseTest.await("observe sees the leader", TIMEOUT, () -> observed.size() >= 1);
      LeaderKey again = get(election.campaign(bytes("rc"), lease, bytes("b"))).getLeader();
      s.log("first " + s.key(first.getKey()) + " rev " + s.rev(first.getRevision()) + ", again "
          + s.key(again.getKey()) + " rev " + s.rev(again.getRevision()));
      s.log("leader value " + get(election.leader(bytes("rc"))).getKv().getValue().toString(StandardCharsets.UTF_8));
      JetcdLeaseTest.await("observe sees the new value", TIMEOUT, () -> observed.size() >= 2);
      s.log("observed " + observed);
      get(election.resign(again));
    });
  }

  /** A client that cancels its waiting Lock: etcd deletes the waiter's key at once (its context ends the wait). */
  @Test
  void aCancelledWaiterRemovesItsKey() throws Exception {
    assertSameTranscript(s -> {
      long holder = s.grant(30);
      long waiter = s.grant(30);
      long next = s.grant(30);
      LockResponse held = get(s.client.getLockClient().lock(bytes("lc"), holder));
      var waiting = LockGrpc.newFutureStub(s.channel).lock(LockRequest.newBuilder()
          .setName(ByteString.copyFromUtf8("lc")).setLease(waiter).build());
      JetcdLeaseTest.await("the waiter's key", TIMEOUT, () -> s.count("lc/") == 2);
      waiting.cancel(true);
      boolean removed = within(Duration.ofSeconds(5), () -> s.count("lc/") == 1);
      s.log("removed within 5 s of the cancel: " + removed);
      assertTrue(removed, "the cancelled waiter's key stayed");
      CompletableFuture<LockResponse> third = s.client.getLockClient().lock(bytes("lc"), next);
      // The third waiter's key must exist before the unlock, or the count below races its Put.
      JetcdLeaseTest.await("the third waiter's key", TIMEOUT, () -> s.count("lc/") == 2);
      get(s.client.getLockClient().unlock(held.getKey()));
      s.log("keys after the holder unlocks: " + s.count("lc/"));
      s.log("third holds within 5 s: " + within(Duration.ofSeconds(5), third::isDone));
      s.log("keys later: " + s.count("lc/"));
    });
  }

  /** A client that cancels its waiting Campaign: etcd resigns the candidate's key (its context ends the wait). */
  @Test
  void aCancelledCandidateRemovesItsKey() throws Exception {
    assertSameTranscript(s -> {
      long leader = s.grant(30);
      long candidate = s.grant(30);
      LeaderKey won = get(s.client.getElectionClient().campaign(bytes("ec"), leader, bytes("a"))).getLeader();
      var waiting = ElectionGrpc.newFutureStub(s.channel).campaign(io.etcd.jetcd.api.CampaignRequest.newBuilder()
          .setName(ByteString.copyFromUtf8("ec")).setLease(candidate).setValue(ByteString.copyFromUtf8("b")).build());
      JetcdLeaseTest.await("the candidate's key", TIMEOUT, () -> s.count("ec/") == 2);
      waiting.cancel(true);
      boolean removed = within(Duration.ofSeconds(5), () -> s.count("ec/") == 1);
      s.log("removed within 5 s of the cancel: " + removed);
      assertTrue(removed, "the cancelled candidate's key stayed");
      s.log("leader still " + s.key(get(s.client.getElectionClient().leader(bytes("ec"))).getKv().getKey()));
      get(s.client.getElectionClient().resign(won));
      s.log("keys after the leader resigns: " + s.count("ec/"));
    });
  }

  @Test
  void lockErrors() throws Exception {
    assertSameTranscript(s -> {
      LockGrpc.LockBlockingStub raw = LockGrpc.newBlockingStub(s.channel).withDeadlineAfter(10, TimeUnit.SECONDS);
      s.log("missing lease: " + failure(() -> raw.lock(LockRequest.newBuilder()
          .setName(ByteString.copyFromUtf8("le")).setLease(0x7777).build())));
      s.log("keys left " + s.count("le/"));
    });
  }

  @Test
  void campaignProclaimObserveAndResignInOrder() throws Exception {
    assertSameTranscript(s -> {
      Election election = s.client.getElectionClient();
      List<String> observed = s.observe("el");
      long e = s.grant(30);
      long f = s.grant(30);
      CampaignResponse won = get(election.campaign(bytes("el"), e, bytes("v1")));
      LeaderKey leader = won.getLeader();
      s.log("leader " + s.key(leader.getKey()) + " rev " + s.rev(leader.getRevision()) + " lease "
          + s.lease(leader.getLease()) + " header " + s.rev(won.getHeader().getRevision()));
      JetcdLeaseTest.await("observe sees v1", TIMEOUT, () -> observed.size() >= 1);
      CompletableFuture<CampaignResponse> next = election.campaign(bytes("el"), f, bytes("w1"));
      JetcdLeaseTest.await("the second candidate's key", TIMEOUT, () -> s.count("el/") == 2);
      assertFalse(next.isDone(), "two leaders at once");
      s.log("proclaim v2 at " + s.rev(get(election.proclaim(leader, bytes("v2"))).getHeader().getRevision()));
      LeaderResponse current = get(election.leader(bytes("el")));
      s.log("leader is " + s.key(current.getKv().getKey()) + "=" + current.getKv().getValue().toString(StandardCharsets.UTF_8));
      s.log("resign at " + s.rev(get(election.resign(leader)).getHeader().getRevision()));
      LeaderKey successor = get(next).getLeader();
      s.log("successor " + s.key(successor.getKey()) + " rev " + s.rev(successor.getRevision()));
      get(election.proclaim(successor, bytes("w2")));
      JetcdLeaseTest.await("observe sees four leaders' values", TIMEOUT, () -> observed.size() >= 4);
      s.log("observed " + observed);
      assertEquals(4, observed.size());
      s.log("stale proclaim: " + failure(() -> get(election.proclaim(leader, bytes("v3")))));
      s.log("stale resign: " + s.rev(get(election.resign(leader)).getHeader().getRevision()));
      get(election.resign(successor));
      s.log("no leader: " + failure(() -> get(election.leader(bytes("el")))));
    });
  }

  /**
   * Campaigns that win at once (akka-etcd answers them as unary calls, from the one txn): a first
   * campaign, the leader campaigning again with its value, a fresh campaign after a resign, and
   * the leadership moving to a waiting candidate on a resign and on a revoked lease.
   */
  @Test
  void uncontendedCampaignsWinAtOnceAndHandOver() throws Exception {
    assertSameTranscript(s -> {
      Election election = s.client.getElectionClient();
      long a = s.grant(30);
      long b = s.grant(30);
      CampaignResponse won = get(election.campaign(bytes("eu"), a, bytes("a1")));
      LeaderKey first = won.getLeader();
      s.log("a leads " + s.key(first.getKey()) + " rev " + s.rev(first.getRevision()) + " header "
          + s.rev(won.getHeader().getRevision()));
      CampaignResponse again = get(election.campaign(bytes("eu"), a, bytes("a1")));
      s.log("a again " + s.key(again.getLeader().getKey()) + " rev " + s.rev(again.getLeader().getRevision())
          + " header " + s.rev(again.getHeader().getRevision()));
      CompletableFuture<CampaignResponse> waiting = election.campaign(bytes("eu"), b, bytes("b1"));
      JetcdLeaseTest.await("b's key", TIMEOUT, () -> s.count("eu/") == 2);
      assertFalse(waiting.isDone(), "b leads while a does");
      s.log("a resigns at " + s.rev(get(election.resign(first)).getHeader().getRevision()));
      LeaderKey second = get(waiting).getLeader();
      s.log("b leads " + s.key(second.getKey()) + " rev " + s.rev(second.getRevision()) + ", value "
          + get(election.leader(bytes("eu"))).getKv().getValue().toString(StandardCharsets.UTF_8));
      s.log("a's old key proclaims: " + failure(() -> get(election.proclaim(first, bytes("a9")))));
      CompletableFuture<CampaignResponse> back = election.campaign(bytes("eu"), a, bytes("a2"));
      JetcdLeaseTest.await("a's new key", TIMEOUT, () -> s.count("eu/") == 2);
      assertFalse(back.isDone(), "a leads while b does");
      get(s.client.getLeaseClient().revoke(b));
      LeaderKey third = get(back).getLeader();
      s.log("after b's lease is revoked a leads " + s.key(third.getKey()) + " rev " + s.rev(third.getRevision()));
      s.log("a proclaims a3 at " + s.rev(get(election.proclaim(third, bytes("a3"))).getHeader().getRevision()));
      get(election.resign(third));
      CampaignResponse fresh = get(election.campaign(bytes("eu"), s.grant(30), bytes("c1")));
      s.log("a fresh candidate leads at once " + s.key(fresh.getLeader().getKey()) + " rev "
          + s.rev(fresh.getLeader().getRevision()) + " header " + s.rev(fresh.getHeader().getRevision()));
      get(election.resign(fresh.getLeader()));
      s.log("keys left " + s.count("eu/"));
    });
  }

  @Test
  void electionErrors() throws Exception {
    assertSameTranscript(s -> {
      ElectionGrpc.ElectionBlockingStub raw = ElectionGrpc.newBlockingStub(s.channel).withDeadlineAfter(10, TimeUnit.SECONDS);
      s.log("leader of nothing: " + failure(() -> raw.leader(LeaderRequest.newBuilder()
          .setName(ByteString.copyFromUtf8("none")).build())));
      s.log("proclaim without leader: " + failure(() -> raw.proclaim(ProclaimRequest.newBuilder()
          .setValue(ByteString.copyFromUtf8("x")).build())));
      s.log("resign without leader: " + failure(() -> raw.resign(ResignRequest.getDefaultInstance())));
      s.log("proclaim for a key never held: " + failure(() -> raw.proclaim(ProclaimRequest.newBuilder()
          .setLeader(io.etcd.jetcd.api.LeaderKey.newBuilder().setName(ByteString.copyFromUtf8("none"))
              .setKey(ByteString.copyFromUtf8("none/1")).setRev(5)).build())));
    });
  }

  /** What one scenario does against one server, logging what it observes. */
  interface Scenario {
    void play(Session s) throws Exception;
  }

  private static void assertSameTranscript(Scenario scenario) throws Exception {
    List<String> expected = play(etcd, scenario);
    List<String> actual = play(akka, scenario);
    assertTrue(expected.size() > 1, "etcd's transcript " + expected);
    assertEquals(expected, actual);
  }

  private static List<String> play(ServerProcess server, Scenario scenario) throws Exception {
    try (Session s = new Session(server)) {
      scenario.play(s);
      return s.transcript;
    }
  }

  /**
   * One client of one server and the transcript of what it saw; lease ids become L1, L2, ...
   * and revisions are counted from the server's revision when the session opened (+1, +2, ...),
   * so a scenario's transcript does not depend on what ran before it. Closing revokes the
   * session's leases, so no key of one scenario expires during a later one.
   */
  static final class Session implements AutoCloseable {
    final Client client;
    final ManagedChannel channel;
    final List<String> transcript = new ArrayList<>();
    private final Map<Long, String> leases = new LinkedHashMap<>();
    private final long baseRevision;

    Session(ServerProcess server) throws Exception {
      client = Client.builder().endpoints(server.clientUrl()).build();
      channel = ManagedChannelBuilder.forTarget(server.endpoint()).usePlaintext().build();
      baseRevision = get(client.getKVClient().get(bytes("\0"))).getHeader().getRevision();
    }

    void log(String line) {
      transcript.add(line);
    }

    /** A revision relative to the session's start. */
    String rev(long revision) {
      return "+" + (revision - baseRevision);
    }

    long grant(long ttl) throws Exception {
      long id = get(client.getLeaseClient().grant(ttl)).getID();
      leases.put(id, "L" + (leases.size() + 1));
      return id;
    }

    /**
     * Observes {@code name} through a raw gRPC stub, each answer as {@code key=value@+rev}. Not
     * through jetcd's Election.observe: it starts the call before it sets its handler, and drops
     * an answer that arrives in between (vert.x's StreamObserverReadStream), so a current
     * leader's first answer could be lost on either server.
     */
    List<String> observe(String name) {
      List<String> observed = new CopyOnWriteArrayList<>();
      ElectionGrpc.newStub(channel).observe(LeaderRequest.newBuilder().setName(ByteString.copyFromUtf8(name)).build(),
          new StreamObserver<io.etcd.jetcd.api.LeaderResponse>() {
            @Override
            public void onNext(io.etcd.jetcd.api.LeaderResponse r) {
              observed.add(key(ByteSequence.from(r.getKv().getKey())) + "=" + r.getKv().getValue().toStringUtf8()
                  + "@" + rev(r.getKv().getModRevision()));
            }

            @Override
            public void onError(Throwable t) {
              if (!channel.isShutdown()) {
                observed.add("error " + t);
              }
            }

            @Override
            public void onCompleted() {
              observed.add("completed");
            }
          });
      return observed;
    }

    String lease(long id) {
      return leases.getOrDefault(id, "unknown lease");
    }

    /** A contender's key with its lease id's hex replaced by the lease's name. */
    String key(ByteSequence key) {
      String k = key.toString(StandardCharsets.UTF_8);
      for (Map.Entry<Long, String> e : leases.entrySet()) {
        k = k.replace(Long.toHexString(e.getKey()), e.getValue());
      }
      return k;
    }

    long createRevision(ByteSequence key) throws Exception {
      return get(client.getKVClient().get(key)).getKvs().get(0).getCreateRevision();
    }

    long count(String prefix) {
      try {
        return get(client.getKVClient().get(bytes(prefix), GetOption.builder().isPrefix(true).withCountOnly(true).build()))
            .getCount();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public void close() {
      for (long id : leases.keySet()) {
        try {
          get(client.getLeaseClient().revoke(id));
        } catch (Exception e) {
          // already revoked by the scenario (lease not found)
        }
      }
      client.close();
      channel.shutdownNow();
    }
  }

  /** Whether {@code condition} holds within {@code timeout} (polled). */
  static boolean within(Duration timeout, java.util.function.BooleanSupplier condition) {
    try {
      JetcdLeaseTest.await("", timeout, condition);
      return true;
    } catch (AssertionError e) {
      return false;
    }
  }

  static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  static <T> T get(CompletableFuture<T> f) throws Exception {
    return f.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
  }

  /** The failure of {@code call} as a client sees it: gRPC status code and text, or jetcd's exception. */
  static String failure(Call call) {
    try {
      return "no failure: " + call.call();
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode() + " " + e.getStatus().getDescription();
    } catch (java.util.concurrent.ExecutionException e) {
      return e.getCause().getClass().getSimpleName() + " " + e.getCause().getMessage();
    } catch (Exception e) {
      return e.toString();
    }
  }

  /** A call that may fail. */
  interface Call {
    Object call() throws Exception;
  }
}
