package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.lease.LeaseTimeToLiveResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Leases through jetcd against an embedded member: grant, attach, keep alive, expire, revoke, restart. */
class JetcdLeaseTest {
  private static EmbeddedMember member;
  private static Client client;

  @BeforeAll
  static void start() {
    member = new EmbeddedMember();
    client = member.client();
  }

  @AfterAll
  static void stop() {
    member.close();
  }

  static ByteSequence b(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  static void await(String what, Duration timeout, BooleanSupplier condition) {
    Instant deadline = Instant.now().plus(timeout);
    while (!condition.getAsBoolean()) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("not within " + timeout + ": " + what);
      }
      Thread.onSpinWait();
    }
  }

  private static long count(String prefix) {
    try {
      return client.getKVClient().get(b(prefix), GetOption.builder().isPrefix(true).withCountOnly(true).build())
          .get(10, java.util.concurrent.TimeUnit.SECONDS).getCount();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void attachedKeysGoWithTheLeaseInOneRevision() throws Exception {
    Lease lease = client.getLeaseClient();
    KV kv = client.getKVClient();
    long id = lease.grant(60).get().getID();
    kv.put(b("lr/a"), b("1"), PutOption.builder().withLeaseId(id).build()).get(10, java.util.concurrent.TimeUnit.SECONDS);
    kv.put(b("lr/b"), b("2"), PutOption.builder().withLeaseId(id).build()).get(10, java.util.concurrent.TimeUnit.SECONDS);
    kv.put(b("lr/plain"), b("3")).get(10, java.util.concurrent.TimeUnit.SECONDS);
    LeaseTimeToLiveResponse ttl = lease.timeToLive(id, LeaseOption.builder().withAttachedKeys().build()).get(10, java.util.concurrent.TimeUnit.SECONDS);
    assertEquals(60, ttl.getGrantedTTL());
    assertTrue(ttl.getTTL() > 0 && ttl.getTTL() <= 60);
    assertEquals(List.of("lr/a", "lr/b"), ttl.getKeys().stream().map(k -> k.toString(StandardCharsets.UTF_8)).toList());

    long before = kv.get(b("lr/plain")).get().getHeader().getRevision();
    long after = lease.revoke(id).get().getHeader().getRevision();
    assertEquals(before + 1, after, "both keys deleted in one revision");
    assertEquals(1, count("lr/"));
    assertEquals(-1, lease.timeToLive(id, LeaseOption.DEFAULT).get().getTTL(), "unknown lease: TTL -1");
    ExecutionException e = assertThrows(ExecutionException.class, () -> lease.revoke(id).get());
    assertTrue(e.getCause().getMessage().contains("etcdserver: requested lease not found"), e.getMessage());
  }

  @Test
  void aShortTtlIsRaisedToTheMinimumAndExpiresByItself() throws Exception {
    Lease lease = client.getLeaseClient();
    long id = lease.grant(1).get().getID();
    assertEquals(2, lease.timeToLive(id, LeaseOption.DEFAULT).get().getGrantedTTL(), "ceil(1.5 x election timeout)");
    client.getKVClient().put(b("le/k"), b("v"), PutOption.builder().withLeaseId(id).build()).get(10, java.util.concurrent.TimeUnit.SECONDS);
    assertEquals(1, count("le/"));
    await("the lease expires and takes its key", Duration.ofSeconds(15), () -> count("le/") == 0);
  }

  @Test
  void keepAliveKeepsALeaseAlivePastItsTtl() throws Exception {
    Lease lease = client.getLeaseClient();
    long id = lease.grant(2).get().getID();
    client.getKVClient().put(b("lk/k"), b("v"), PutOption.builder().withLeaseId(id).build()).get(10, java.util.concurrent.TimeUnit.SECONDS);
    Instant start = Instant.now();
    try (CloseableClient keeping = lease.keepAlive(id, new StreamObserver<LeaseKeepAliveResponse>() {
      @Override public void onNext(LeaseKeepAliveResponse r) { }
      @Override public void onError(Throwable t) { }
      @Override public void onCompleted() { }
    })) {
      // Poll past twice the TTL: the key must stay the whole time.
      while (Duration.between(start, Instant.now()).compareTo(Duration.ofSeconds(5)) < 0) {
        assertEquals(1, count("lk/"), "kept alive");
      }
    }
    lease.revoke(id).get(10, java.util.concurrent.TimeUnit.SECONDS);
  }

  @Test
  void leasesSurviveARestart() throws Exception {
    long id = client.getLeaseClient().grant(300).get().getID();
    client.getKVClient().put(b("ls/k"), b("v"), PutOption.builder().withLeaseId(id).build()).get(10, java.util.concurrent.TimeUnit.SECONDS);
    member.restart();
    client = member.client();
    LeaseTimeToLiveResponse ttl = client.getLeaseClient()
        .timeToLive(id, LeaseOption.builder().withAttachedKeys().build()).get(10, TimeUnit.SECONDS);
    assertEquals(300, ttl.getGrantedTTL());
    assertEquals(List.of("ls/k"), ttl.getKeys().stream().map(k -> k.toString(StandardCharsets.UTF_8)).toList());
    client.getLeaseClient().revoke(id).get(10, java.util.concurrent.TimeUnit.SECONDS);
    assertEquals(0, count("ls/"));
  }
}
