package io.akkaetcd.lease;

import com.google.protobuf.ByteString;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.mvcc.KeyOrder;
import io.akkaetcd.mvcc.KvStore;
import io.akkaetcd.proto.etcdserverpb.LeaseCheckpoint;
import io.akkaetcd.proto.etcdserverpb.LeaseCheckpointRequest;
import io.akkaetcd.proto.etcdserverpb.LeaseCheckpointResponse;
import io.akkaetcd.proto.etcdserverpb.LeaseGrantRequest;
import io.akkaetcd.proto.etcdserverpb.LeaseGrantResponse;
import io.akkaetcd.proto.etcdserverpb.LeaseRevokeRequest;
import io.akkaetcd.proto.etcdserverpb.LeaseRevokeResponse;
import io.akkaetcd.proto.etcdserverpb.ResponseHeader;
import io.akkaetcd.proto.mvccpb.Event;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The applied lease state (etcd's lessor, without the clock): which leases exist, their granted
 * TTL and the keys attached to each. Changed only by the applier, in log order, so every member
 * holds the same; read by the API from any thread. Durable through the store's lease records;
 * the attachments are rebuilt from the keys' lease field at start.
 *
 * <p>Deadlines are not here: only the leader's {@link LeaseKeeper} knows them, and expiry is a
 * revoke proposed through Raft like any other.
 */
public final class Lessor implements LeaseLookup {
  /** etcd's MaxLeaseTTL in seconds. */
  public static final long MAX_TTL = 9_000_000_000L;

  /**
   * A lease: its granted TTL in seconds and its keys. Only the applier changes the keys; readers
   * on other threads see a concurrent set. Most leases never get a key (sessions, elections keep
   * one or two), so the set is made on the first attach: an empty concurrent set costs about
   * 90 bytes, a quarter of what a lease costs in all.
   */
  public static final class Lease {
    private final long id;
    private final long ttl;
    private volatile Set<ByteString> keys;
    /**
     * The last checkpointed remaining TTL in seconds, 0 if none (etcd's remainingTTL): durable only
     * when the lessor persists checkpoints.
     */
    private volatile long remainingTtl;

    Lease(long id, long ttl) {
      this.id = id;
      this.ttl = ttl;
    }

    public long id() {
      return id;
    }

    public long ttl() {
      return ttl;
    }

    public long remainingTtl() {
      return remainingTtl;
    }

    /** The attached keys, unordered; a live view, empty if none was ever attached. */
    public Set<ByteString> keys() {
      Set<ByteString> k = keys;
      return k == null ? Set.of() : k;
    }

    /** Applier thread only. */
    void attach(ByteString key) {
      Set<ByteString> k = keys;
      if (k == null) {
        k = ConcurrentHashMap.newKeySet();
        keys = k;
      }
      k.add(key);
    }

    /** Applier thread only. */
    void detach(ByteString key) {
      Set<ByteString> k = keys;
      if (k != null) {
        k.remove(key);
      }
    }
  }

  private final ConcurrentHashMap<Long, Lease> leases = new ConcurrentHashMap<>();
  /**
   * The lease of every key attached to one (applier thread only): a put learns here what it
   * detaches from, without reading the key's previous version from the store.
   */
  private final Map<ByteString, Long> leaseOfKey = new java.util.HashMap<>();
  private final long minTtl;
  /** etcd 3.5's --experimental-enable-lease-checkpoint-persist: an applied checkpoint is written to the store. */
  private final boolean persistCheckpoints;
  private volatile LeaseObserver observer = LeaseObserver.NONE;

  /** @param minTtl etcd's minimum TTL: ceil(1.5 x election timeout) in seconds; shorter grants are raised */
  public Lessor(long minTtl) {
    this(minTtl, false);
  }

  /** @param persistCheckpoints whether applied checkpoints are recorded with the lease, to survive a restart */
  public Lessor(long minTtl, boolean persistCheckpoints) {
    this.minTtl = minTtl;
    this.persistCheckpoints = persistCheckpoints;
  }

  /** Rebuilds the lessor from the store: its lease records and the live keys' lease fields. */
  public static Lessor recover(KvStore store, long minTtl) {
    return recover(store, minTtl, false);
  }

  /** {@link #recover(KvStore, long)}, persisting the checkpoints applied from now on if asked. */
  public static Lessor recover(KvStore store, long minTtl, boolean persistCheckpoints) {
    Lessor l = new Lessor(minTtl, persistCheckpoints);
    l.reload(store);
    return l;
  }

  /**
   * Takes the store's leases and attachments in place of the ones held (applier thread): at start,
   * and after a snapshot replaced the store. Leases that stay are replaced, not removed first, so
   * a reader never sees an existing lease missing.
   */
  public void reload(KvStore store) {
    Map<Long, Lease> loaded = new java.util.HashMap<>();
    store.leases().forEach((id, ttl) -> loaded.put(id, new Lease(id, ttl)));
    // As etcd 3.5's initAndRecover, a recorded remaining TTL is read whatever the flag: only a
    // member that persists checkpoints ever records one.
    store.leaseCheckpoints().forEach((id, remaining) -> {
      Lease lease = loaded.get(id);
      if (lease != null) {
        lease.remainingTtl = remaining;
      }
    });
    leaseOfKey.clear();
    if (!loaded.isEmpty()) {
      store.leasedKeys().forEach((key, id) -> {
        Lease lease = loaded.get(id);
        if (lease != null) {
          lease.attach(key);
          leaseOfKey.put(key, id);
        }
      });
    }
    leases.putAll(loaded);
    leases.keySet().retainAll(loaded.keySet());
  }

  @Override
  public boolean exists(long leaseId) {
    return leases.containsKey(leaseId);
  }

  public Optional<Lease> get(long id) {
    return Optional.ofNullable(leases.get(id));
  }

  public List<Long> ids() {
    return List.copyOf(leases.keySet());
  }

  public Map<Long, Long> ttls() {
    Map<Long, Long> out = new java.util.HashMap<>();
    leases.values().forEach(l -> out.put(l.id(), l.ttl()));
    return out;
  }

  /** The applied remaining TTL of each lease that has one (a checkpoint). */
  public Map<Long, Long> remainingTtls() {
    Map<Long, Long> out = new java.util.HashMap<>();
    leases.values().forEach(l -> {
      if (l.remainingTtl > 0) {
        out.put(l.id(), l.remainingTtl);
      }
    });
    return out;
  }

  /** The applied remaining TTL of a lease, 0 if none or no such lease. */
  public long remainingTtl(long id) {
    Lease l = leases.get(id);
    return l == null ? 0 : l.remainingTtl;
  }

  /**
   * Applies a checkpoint on every member: each named lease that still exists keeps the remaining
   * TTL for the next leader's promotion (0 clears it), and records it with the lease when
   * checkpoints persist. etcd's lessor.Checkpoint.
   */
  public LeaseCheckpointResponse checkpoint(KvStore store, LeaseCheckpointRequest r) {
    for (LeaseCheckpoint c : r.getCheckpointsList()) {
      Lease l = leases.get(c.getID());
      if (l != null) {
        l.remainingTtl = c.getRemainingTTL();
        if (persistCheckpoints) {
          store.putLeaseCheckpoint(l.id, l.ttl, l.remainingTtl);
        }
      }
    }
    return LeaseCheckpointResponse.newBuilder()
        .setHeader(ResponseHeader.newBuilder().setRevision(store.currentRevision())).build();
  }

  /** Where grants and revokes are reported from now on (etcd_debugging_lease_*). */
  public void observe(LeaseObserver observer) {
    this.observer = observer;
  }

  /** Applies a grant: the id is chosen by the proposer; a TTL below the minimum is raised. */
  public LeaseGrantResponse grant(KvStore store, LeaseGrantRequest r) {
    if (r.getTTL() > MAX_TTL) {
      throw EtcdError.LEASE_TTL_TOO_LARGE.exception();
    }
    if (leases.containsKey(r.getID())) {
      throw EtcdError.LEASE_EXIST.exception();
    }
    long ttl = Math.max(r.getTTL(), minTtl);
    store.putLease(r.getID(), ttl);
    leases.put(r.getID(), new Lease(r.getID(), ttl));
    observer.granted(ttl);
    return LeaseGrantResponse.newBuilder()
        .setHeader(ResponseHeader.newBuilder().setRevision(store.currentRevision()))
        .setID(r.getID()).setTTL(ttl).build();
  }

  /** Applies a revoke: every attached key is deleted in one revision, then the lease goes. */
  public LeaseRevokeResponse revoke(KvStore store, long raftIndex, LeaseRevokeRequest r) {
    Lease lease = leases.get(r.getID());
    if (lease == null) {
      throw EtcdError.LEASE_NOT_FOUND.exception();
    }
    KvStore.WriteTxn txn = store.beginTxn(raftIndex);
    for (ByteString key : lease.keys().stream().sorted(KeyOrder.COMPARATOR).toList()) {
      txn.deleteRange(key, ByteString.EMPTY);
      leaseOfKey.remove(key);
    }
    long revision = txn.revision();
    boolean wrote = !txn.end().isEmpty();
    store.deleteLease(r.getID());
    leases.remove(r.getID());
    observer.revoked();
    return LeaseRevokeResponse.newBuilder()
        .setHeader(ResponseHeader.newBuilder().setRevision(wrote ? revision : store.currentRevision()))
        .build();
  }

  /** Keeps the attachments in step with applied writes: a put attaches, a delete or re-put detaches. */
  public void observe(List<Event> events) {
    for (Event e : events) {
      ByteString key = e.getKv().getKey();
      long after = e.getType() == Event.EventType.PUT ? e.getKv().getLease() : 0;
      Long before = after != 0 ? leaseOfKey.put(key, after) : leaseOfKey.remove(key);
      if (before != null && before != after) {
        Lease l = leases.get(before);
        if (l != null) {
          l.detach(key);
        }
      }
      if (after != 0) {
        Lease l = leases.get(after);
        if (l != null) {
          l.attach(key);
        }
      }
    }
  }
}
