package io.akkaetcd.raft.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import akka.actor.typed.ActorRef;
import io.akkaetcd.proto.peerpb.PeerProbe;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** A link's runs of activity (etcd's ActiveSince), on a clock the test sets, and the probe receiver. */
class PeerActivityTest {
  private static final long MS = 1_000_000;
  private static final ActorTestKit testKit = ActorTestKit.create();

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  void aRunLastsWhileThePeerIsHeardWithinTheTimeout() {
    PeerActivity a = new PeerActivity(Duration.ofMillis(1000));
    assertEquals(OptionalLong.empty(), a.activeSince(2, 0), "never heard");
    for (long t = 0; t <= 6000; t += 100) {
      a.heard(2, t * MS);
    }
    assertEquals(OptionalLong.of(0), a.activeSince(2, 6000 * MS));
    assertTrue(a.activeFor(2, 6000 * MS, Duration.ofSeconds(5)));
    assertTrue(a.activeFor(2, 7000 * MS, Duration.ofSeconds(5)), "still within the timeout");
    assertFalse(a.activeFor(2, 7001 * MS, Duration.ofSeconds(5)), "silent for longer than the timeout");
    assertEquals(OptionalLong.empty(), a.activeSince(2, 7001 * MS));
    assertEquals(OptionalLong.empty(), a.activeSince(3, 6000 * MS), "another peer");
  }

  @Test
  void aSilenceLongerThanTheTimeoutStartsANewRun() {
    PeerActivity a = new PeerActivity(Duration.ofMillis(1000));
    a.heard(2, 0);
    a.heard(2, 900 * MS);
    a.heard(2, 2000 * MS); // 1,100 ms after the last: a break
    assertEquals(OptionalLong.of(2000 * MS), a.activeSince(2, 2000 * MS));
    assertFalse(a.activeFor(2, 2500 * MS, Duration.ofSeconds(1)));
    a.heard(2, 2900 * MS);
    assertTrue(a.activeFor(2, 3000 * MS, Duration.ofSeconds(1)));
  }

  @Test
  void theReceiverRecordsProbesOfItsClusterOnly() {
    PeerActivity a = new PeerActivity(Duration.ofSeconds(1));
    AtomicLong clock = new AtomicLong(1000 * MS);
    ActorRef<PeerProbe> receiver = testKit.spawn(PeerProbes.receiver(a, PeerGate.OPEN, 7, clock::get));
    receiver.tell(PeerProbe.newBuilder().setFrom(2).setClusterId(8).build()); // another cluster's
    receiver.tell(PeerProbe.newBuilder().setFrom(3).setClusterId(7).build());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (a.activeSince(3, clock.get()).isEmpty()) {
      assertTrue(System.nanoTime() < deadline, "the probe was not recorded");
      Thread.onSpinWait();
    }
    // Handled in order: the first probe was looked at, and dropped, before the second.
    assertEquals(OptionalLong.empty(), a.activeSince(2, clock.get()));
  }
}
