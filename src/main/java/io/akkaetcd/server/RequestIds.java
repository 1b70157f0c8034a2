package io.akkaetcd.server;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Unique request ids (etcd's idutil.Generator): the low 16 bits of the member id, then the start
 * time in milliseconds, then a counter. Ids of different members never collide, and ids of a
 * restarted member do not collide with those of its earlier run still in the log.
 */
final class RequestIds {
  private final AtomicLong next;

  RequestIds(long memberId, long nowMillis) {
    long prefix = (memberId & 0xffffL) << 48;
    long time = (nowMillis & 0xffffffffffL) << 8;
    this.next = new AtomicLong(prefix | time);
  }

  long next() {
    return next.incrementAndGet();
  }
}
