package io.akkaetcd.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The clients' in-flight bound: count, bytes, the lone big proposal, release, no bound at 0. */
class ProposalAdmissionTest {
  @Test
  void admitsUpToTheCountThenRefusesUntilOneIsReleased() {
    ProposalAdmission a = new ProposalAdmission(3, 0);
    assertTrue(a.tryAdmit(10));
    assertTrue(a.tryAdmit(10));
    assertTrue(a.tryAdmit(10));
    assertFalse(a.tryAdmit(10));
    assertEquals(3, a.inFlight());
    a.release(10);
    assertTrue(a.tryAdmit(10));
    assertFalse(a.tryAdmit(1));
  }

  @Test
  void boundsTheBytesButAlwaysAdmitsOneAlone() {
    ProposalAdmission a = new ProposalAdmission(0, 100);
    assertTrue(a.tryAdmit(1000), "alone, whatever its size");
    assertFalse(a.tryAdmit(1), "nothing beside a proposal over the bound");
    assertEquals(1, a.inFlight(), "a refusal leaves no trace");
    a.release(1000);
    assertTrue(a.tryAdmit(60));
    assertTrue(a.tryAdmit(40));
    assertFalse(a.tryAdmit(1));
    a.release(40);
    assertTrue(a.tryAdmit(40));
  }

  @Test
  void zeroIsNoBound() {
    ProposalAdmission a = new ProposalAdmission(0, 0);
    for (int i = 0; i < 100_000; i++) {
      assertTrue(a.tryAdmit(1 << 20));
    }
  }

  @Test
  void concurrentAdmissionsNeverExceedTheBound() throws InterruptedException {
    int bound = 8;
    ProposalAdmission a = new ProposalAdmission(bound, 0);
    AtomicInteger over = new AtomicInteger();
    AtomicInteger admitted = new AtomicInteger();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      Thread thread = new Thread(() -> {
        for (int i = 0; i < 200_000; i++) {
          if (a.tryAdmit(1)) {
            admitted.incrementAndGet();
            if (a.inFlight() > bound) {
              over.incrementAndGet();
            }
            a.release(1);
          }
        }
      });
      thread.start();
      threads.add(thread);
    }
    for (Thread t : threads) {
      t.join();
    }
    assertEquals(0, over.get());
    assertEquals(0, a.inFlight());
    assertTrue(admitted.get() > 0);
  }
}
