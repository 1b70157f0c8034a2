package io.akkaetcd.mvcc;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The raised alarms' records ({@code 'a' + the alarm's serialized form}, no value, as etcd's alarm
 * bucket keys them): written with the applier's batch, read back (any thread) at start and after
 * a snapshot install.
 */
final class AlarmRows {
  private final Backend backend;
  private final ApplyBatch batch;

  AlarmRows(Backend backend, ApplyBatch batch) {
    this.backend = backend;
    this.batch = batch;
  }

  /** {@link KvStore#putAlarm}; applier thread. */
  void put(byte[] record) {
    batch.put(StoreLayout.alarmKey(record), new byte[0]);
  }

  /** {@link KvStore#deleteAlarm}; applier thread. */
  void delete(byte[] record) {
    batch.delete(StoreLayout.alarmKey(record));
  }

  /** {@link KvStore#alarms}: every record, as recorded. */
  List<byte[]> read() {
    return backend.guarded(() -> {
      List<byte[]> out = new ArrayList<>();
      backend.scanPrefix(StoreLayout.ALARM, (k, v) -> out.add(Arrays.copyOfRange(k, 1, k.length)));
      return out;
    });
  }
}
