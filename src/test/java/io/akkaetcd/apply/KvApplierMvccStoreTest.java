package io.akkaetcd.apply;

import io.akkaetcd.mvcc.KvStore;
import io.akkaetcd.mvcc.MvccStore;
import java.nio.file.Path;

/** The applier contract over the real LevelDB-backed store. */
class KvApplierMvccStoreTest extends KvApplierContract {
  @Override
  KvStore open(Path dir) throws Exception {
    return MvccStore.open(dir);
  }
}
