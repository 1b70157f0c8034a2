package io.akkaetcd.apply;

import io.akkaetcd.mvcc.KvStore;

/** Lets tests in other packages use the in-memory store double. */
public final class InMemoryKvStoreAccess {
  public KvStore create() {
    return new InMemoryKvStore();
  }
}
