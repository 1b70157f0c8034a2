package io.akkaetcd.wait;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class WaitTest {
  @Test
  void triggerCompletesOnlyTheRegisteredRequest() throws Exception {
    Wait w = new Wait();
    CompletableFuture<Object> f = w.register(7);
    w.trigger(8, "other");
    assertFalse(f.isDone());
    w.trigger(7, "mine");
    assertEquals("mine", f.get());
    assertFalse(w.isPending(7));
  }

  @Test
  void proposedHandsBackTheRequestOnlyForItsOwnBytesAndOnlyWhileItWaits() {
    Wait w = new Wait();
    Object request = new Object();
    w.register(5, ByteString.copyFromUtf8("put a"), request);
    w.register(6);
    assertSame(request, w.proposed(5, ByteString.copyFromUtf8("put a"))); // equal bytes, another instance
    assertNull(w.proposed(5, ByteString.copyFromUtf8("put b"))); // same id, other bytes: another member's
    assertNull(w.proposed(6, ByteString.copyFromUtf8("put a"))); // registered without a request
    assertNull(w.proposed(9, ByteString.copyFromUtf8("put a")));
    w.trigger(5, "done");
    assertNull(w.proposed(5, ByteString.copyFromUtf8("put a")));
  }

  @Test
  void failAndDuplicates() {
    Wait w = new Wait();
    CompletableFuture<Object> f = w.register(1);
    assertThrows(IllegalStateException.class, () -> w.register(1));
    w.fail(1, new RuntimeException("dropped"));
    assertThrows(ExecutionException.class, f::get);
  }

  @Test
  void expireFailsOnlyRequestsOlderThanTheTimeoutWithTheirOwnRegistrationTime() throws Exception {
    Wait w = new Wait();
    CompletableFuture<Object> old = w.register(1, 1_000);
    CompletableFuture<Object> young = w.register(2, 5_000);
    w.expire(10_999, 10_000, registered -> new RuntimeException("timed out, registered at " + registered));
    assertFalse(old.isDone());
    w.expire(11_000, 10_000, registered -> new RuntimeException("timed out, registered at " + registered));
    ExecutionException e = assertThrows(ExecutionException.class, old::get);
    assertEquals("timed out, registered at 1000", e.getCause().getMessage());
    assertFalse(w.isPending(1));
    assertFalse(young.isDone());
    w.trigger(2, "applied");
    assertEquals("applied", young.get());
  }

  @Test
  void appliedIndexWaitersCompleteInOrderOnceReached() {
    AppliedIndexWait a = new AppliedIndexWait(5);
    assertTrue(a.waitFor(5).isDone());
    CompletableFuture<Long> f7 = a.waitFor(7);
    CompletableFuture<Long> f9 = a.waitFor(9);
    a.advance(8);
    assertTrue(f7.isDone());
    assertFalse(f9.isDone());
    a.advance(6); // never goes back
    assertEquals(8, a.applied());
    a.advance(9);
    assertTrue(f9.isDone());
  }
}
