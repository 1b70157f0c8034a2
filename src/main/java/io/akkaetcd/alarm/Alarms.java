package io.akkaetcd.alarm;

import com.google.protobuf.InvalidProtocolBufferException;
import io.akkaetcd.mvcc.KvStore;
import io.akkaetcd.proto.etcdserverpb.AlarmMember;
import io.akkaetcd.proto.etcdserverpb.AlarmRequest;
import io.akkaetcd.proto.etcdserverpb.AlarmResponse;
import io.akkaetcd.proto.etcdserverpb.AlarmType;
import io.akkaetcd.proto.etcdserverpb.InternalRaftRequest;
import java.util.ArrayList;
import java.util.List;

/**
 * The alarms raised in the cluster (etcd's v3alarm.AlarmStore): one entry per (member, alarm
 * type). Changed only by applied Alarm requests, so every member holds the same set; each change
 * goes into the batch being applied (with its applied index), and the set is read back from the
 * store at start and after a snapshot replaced the store. Written by the applier only; read from
 * any thread (the set is replaced whole, never changed in place).
 */
public final class Alarms {
  private volatile List<AlarmMember> raised = List.of();

  /** The alarms the store records (at start). */
  public static Alarms recover(KvStore store) {
    Alarms a = new Alarms();
    a.reload(store);
    return a;
  }

  /** Takes the store's alarms in place of the ones held: after a snapshot replaced the store. */
  public void reload(KvStore store) {
    List<AlarmMember> loaded = new ArrayList<>();
    for (byte[] record : store.alarms()) {
      try {
        loaded.add(AlarmMember.parseFrom(record));
      } catch (InvalidProtocolBufferException e) {
        throw new IllegalStateException("corrupt alarm record in the MVCC store", e);
      }
    }
    raised = List.copyOf(loaded);
  }

  /**
   * Applies an Alarm request as etcd's applier does: GET lists the alarms of a type (NONE: all);
   * ACTIVATE raises one and answers it (or the one already raised); DEACTIVATE clears one and
   * answers it (nothing if it was not raised).
   */
  public AlarmResponse apply(KvStore store, AlarmRequest r) {
    AlarmResponse.Builder resp = AlarmResponse.newBuilder();
    AlarmMember m = AlarmMember.newBuilder().setMemberID(r.getMemberID()).setAlarm(r.getAlarm()).build();
    switch (r.getAction()) {
      case GET -> resp.addAllAlarms(get(r.getAlarm()));
      case ACTIVATE -> {
        if (!raised.contains(m)) {
          List<AlarmMember> next = new ArrayList<>(raised);
          next.add(m);
          store.putAlarm(m.toByteArray());
          raised = List.copyOf(next);
        }
        resp.addAlarms(m);
      }
      case DEACTIVATE -> {
        if (raised.contains(m)) {
          List<AlarmMember> next = new ArrayList<>(raised);
          next.remove(m);
          store.deleteAlarm(m.toByteArray());
          raised = List.copyOf(next);
          resp.addAlarms(m);
        }
      }
      default -> { }
    }
    return resp.build();
  }

  /** The raised alarms of {@code type}, in the order raised; NONE: every alarm. */
  public List<AlarmMember> get(AlarmType type) {
    if (type == AlarmType.NONE) {
      return raised;
    }
    return raised.stream().filter(a -> is(a, type)).toList();
  }

  /** Whether {@code alarm} is of {@code type}; NONE stands for every type, as in etcd's AlarmGet. */
  private static boolean is(AlarmMember alarm, AlarmType type) {
    return type == AlarmType.NONE || alarm.getAlarm() == type;
  }

  /**
   * What the applier refuses with "etcdserver: corrupt cluster" while a CORRUPT alarm is raised
   * (etcd 3.4's applierV3Corrupt): KV writes, compactions, lease grants and revokes. Reads are
   * served outside Raft; alarm, auth and membership requests go on, so an operator can disarm it.
   */
  public static boolean refusedWhileCorrupt(InternalRaftRequest r) {
    return switch (r.getRequestCase()) {
      case RANGE, PUT, DELETE_RANGE, TXN, COMPACTION, LEASE_GRANT, LEASE_REVOKE -> true;
      default -> false;
    };
  }

  /** Whether an alarm of {@code type} is raised by any member. */
  public boolean active(AlarmType type) {
    // asked on every applied write: a plain walk, no stream or list (none raised, nothing to walk)
    for (AlarmMember a : raised) {
      if (is(a, type)) {
        return true;
      }
    }
    return false;
  }

  /**
   * An alarm as etcd prints it in Status errors and `etcdctl alarm list` (the compact text form
   * of the Go message, the id in decimal, a trailing space: "memberID:10276657743932975437 alarm:NOSPACE ").
   */
  public static String describe(AlarmMember a) {
    StringBuilder s = new StringBuilder();
    if (a.getMemberID() != 0) {
      s.append("memberID:").append(Long.toUnsignedString(a.getMemberID())).append(' ');
    }
    if (a.getAlarm() != AlarmType.NONE) {
      s.append("alarm:").append(a.getAlarm().name()).append(' ');
    }
    return s.toString();
  }
}
