package io.akkaetcd.apply;

import io.akkaetcd.mvcc.KvStore;
import java.nio.file.Path;

/** The applier contract over the test-only in-memory store. */
class KvApplierInMemoryTest extends KvApplierContract {
  @Override
  KvStore open(Path dir) {
    return new InMemoryKvStore();
  }
}
