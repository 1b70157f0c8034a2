package io.akkaetcd.server;

import io.akkaetcd.apply.RequestDispatch;
import io.akkaetcd.apply.ApplierActor;
import akka.actor.CoordinatedShutdown;
import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Behavior;
import akka.actor.typed.DispatcherSelector;
import akka.actor.typed.javadsl.Behaviors;
import akka.http.javadsl.Http;
import akka.http.javadsl.ServerBinding;
import akka.http.javadsl.model.HttpRequest;
import akka.http.javadsl.model.HttpResponse;
import akka.japi.function.Function;
import akka.stream.Materializer;
import com.google.protobuf.ByteString;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.akkaetcd.alarm.Alarms;
import io.akkaetcd.api.ClientRouter;
import io.akkaetcd.api.ClientServices;
import io.akkaetcd.api.GrpcServices;
import io.akkaetcd.api.pipeline.Plugins;
import io.akkaetcd.embed.EtcdClient;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.errors.EtcdException;
import io.akkaetcd.api.EtcdMember;
import io.akkaetcd.watch.WatchHub;
import io.akkaetcd.lease.LeaseExpiry;
import io.akkaetcd.lease.LeaseForwarding;
import io.akkaetcd.lease.LeaseKeeper;
import io.akkaetcd.lease.Lessor;
import io.akkaetcd.apply.KvApplier;
import io.akkaetcd.cluster.ClusterMembers;
import io.akkaetcd.cluster.MemberAttributes;
import io.akkaetcd.cluster.MemberId;
import io.akkaetcd.cluster.MemberIdentity;
import io.akkaetcd.cluster.Membership;
import io.akkaetcd.cluster.PeerAsk;
import io.akkaetcd.proto.raftpb.ConfChange;
import io.akkaetcd.proto.raftpb.ConfChangeType;
import io.akkaetcd.proto.etcdserverpb.MemberAttrSetRequest;
import io.akkaetcd.compactor.AutoCompactor;
import io.akkaetcd.compactor.CompactionPolicy;
import io.akkaetcd.mvcc.KvStore;
import io.akkaetcd.mvcc.MvccStore;
import io.akkaetcd.proto.etcdserverpb.CompactionRequest;
import io.akkaetcd.proto.etcdserverpb.InternalRaftRequest;
import io.akkaetcd.proto.etcdserverpb.LeaseRevokeRequest;
import akka.actor.typed.javadsl.Adapter;
import io.akkaetcd.raft.Message;
import io.akkaetcd.raft.peer.PeerActivity;
import io.akkaetcd.raft.peer.PeerFilter;
import io.akkaetcd.raft.peer.PeerProbes;
import io.akkaetcd.raft.peer.PeerTransport;
import io.akkaetcd.snapshot.SnapshotTransfers;
import io.akkaetcd.raft.member.RaftInbox;
import io.akkaetcd.raft.storage.JournalCheck;
import io.akkaetcd.raft.member.RaftMember;
import io.akkaetcd.raft.member.RaftStatus;
import io.akkaetcd.wait.AppliedIndexWait;
import io.akkaetcd.wait.Wait;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One akka-etcd member: the MVCC store, the actors (raft member, applier) and the client
 * listeners, started from a {@link ServerConfig}. Usable embedded in another application:
 * {@code EtcdServer.start(config)} and {@link #close()}.
 *
 * <p>Data directory layout: {@code member/wal} (Akka Persistence LevelDB journal: the raft log),
 * {@code member/snap} (raft snapshots), {@code member/mvcc} (the MVCC LevelDB backend).
 */
public final class EtcdServer implements EtcdMember, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EtcdServer.class);

  private final ServerConfig config;
  private final Membership membership;
  private final MemberAttributes attributes;
  private final KvStore store;
  /** The alarms raised in the cluster, as applied here. */
  private final Alarms alarms;
  private final ActorSystem<Void> system;
  private final RaftInbox inbox;
  private final Wait wait;
  /** Linearizable reads waiting for their read index to be applied, by an id from {@link #ids}. */
  private final Wait reads = new Wait();
  private final AppliedIndexWait applied;
  private final AtomicReference<RaftStatus> raftStatus;
  private final RequestIds ids;
  private final Executor readExecutor;
  private final Duration requestTimeout;
  private final long maxApplyGap;
  private final String serverVersion;
  private final String clusterVersion;
  private final List<ServerBinding> bindings;
  private final PromoteForwarding promotions;
  private final AtomicBoolean restartRequested = new AtomicBoolean();
  /** Set when the member stopped because a vital actor failed, not because it was asked to. */
  private final AtomicBoolean failed;
  /** The links from the peers, as their probes show them (empty for a member alone). */
  private final PeerActivity links;
  /** Completes once the actors are stopped and the store is closed. */
  private final CompletableFuture<Void> stopped = new CompletableFuture<>();
  /** The in-process client, on the same service instances as the client URLs; set before they are bound. */
  private volatile EtcdClient client;
  /** Run when the first client request was answered; set before the client URLs are bound. */
  private volatile Runnable promoteAtFirstAnswer = () -> { };
  /** Completes once clients are served (see {@link #ready()}); set before the client URLs are bound. */
  private volatile CompletableFuture<Void> ready = CompletableFuture.completedFuture(null);
  /** Completes once this member's name and client URLs, as its flags give them now, are recorded. */
  private volatile CompletableFuture<Void> published = CompletableFuture.completedFuture(null);

  private EtcdServer(ServerConfig config, Membership membership, MemberAttributes attributes, KvStore store,
      ActorSystem<Void> system,
      RaftInbox inbox, Wait wait, AppliedIndexWait applied,
      AtomicReference<RaftStatus> raftStatus, AtomicBoolean failed, PeerFilter filter, PeerActivity links,
      Alarms alarms) {
    this.failed = failed;
    this.alarms = alarms;
    this.links = links;
    this.config = config;
    this.membership = membership;
    this.attributes = attributes;
    this.store = store;
    this.system = system;
    this.inbox = inbox;
    this.wait = wait;
    this.applied = applied;
    this.raftStatus = raftStatus;
    this.ids = new RequestIds(membership.current().self().value(), System.currentTimeMillis());
    this.readExecutor = system.dispatchers().lookup(DispatcherSelector.fromConfig("akka-etcd.read-dispatcher"));
    Config c = system.settings().config();
    this.requestTimeout = c.getDuration("akka-etcd.request-timeout");
    this.maxApplyGap = c.getLong("akka-etcd.max-gap-between-apply-and-commit");
    this.serverVersion = c.getString("akka-etcd.server-version");
    this.clusterVersion = c.getString("akka-etcd.cluster-version");
    this.bindings = new ArrayList<>();
    this.promotions = new PromoteForwarding(peerAsk(Adapter.toClassic(system), membership, filter), requestTimeout,
        membership.current().clusterId());
  }

  /**
   * Journal events between snapshots of the Raft log: a hundredth of --snapshot-count. etcd counts
   * entries; one of our events holds one or more (many under load), and a snapshot is small (the
   * few thousand entries a lone member keeps in memory), so snapshotting more often keeps the
   * journal a restart replays short.
   */
  static int journalSnapshotEvents(long snapshotCount) {
    return (int) Math.max(100, Math.min(Integer.MAX_VALUE, snapshotCount / 100));
  }

  /** Opens the data directory, starts the member and binds every --listen-client-urls. */
  public static EtcdServer start(ServerConfig config) {
    return start(config, Plugins.NONE);
  }

  /** As {@link #start(ServerConfig)}, with {@code plugins} in the member's request pipeline (auth, metrics). */
  public static EtcdServer start(ServerConfig config, Plugins plugins) {
    if (java.util.concurrent.ForkJoinPool.getCommonPoolParallelism() < 2) {
      log.warn("the JDK common pool has 1 thread, so every gRPC request starts a thread of its own: "
          + "start the JVM with -D{}=2 (akka-etcd's Main sets it)", Main.COMMON_POOL_PARALLELISM);
    }
    // As etcd: a member that cannot listen fails before it writes anything.
    ListenUrls.check(config);
    Path memberDir = config.dataDir().resolve("member");
    try {
      Files.createDirectories(memberDir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create data dir " + memberDir, e);
    }
    // A member joining a running cluster learns it from its peers the first time; afterwards its
    // data directory holds the membership it applied, whatever the flags say.
    boolean joining = config.initialClusterState().equals("existing") && !Files.exists(memberDir.resolve("identity"));
    ClusterMembers bootstrap = joining ? ClusterJoin.fetch(config) : config.bootstrapMembers();
    Membership membership = Membership.load(memberDir, MemberIdentity.loadOrRecord(memberDir, bootstrap));
    ClusterMembers members = membership.current();
    MemberAttributes attributes = MemberAttributes.load(memberDir);
    JournalCheck.verifyOpens(memberDir.resolve("wal"));
    Path storeDir = memberDir.resolve("mvcc");
    MvccStore store = MvccStore.open(storeDir);
    Wait wait = new Wait();
    AppliedIndexWait applied = new AppliedIndexWait(store.appliedIndex());
    AtomicReference<RaftStatus> status = new AtomicReference<>(RaftStatus.INITIAL);
    CompletableFuture<ActorRef<RaftMember.Command>> raftRef = new CompletableFuture<>();
    RaftInbox inbox = new RaftInbox();
    AtomicBoolean failed = new AtomicBoolean();

    // etcd's minimum lease TTL: ceil(1.5 x election timeout), in seconds.
    long minLeaseTtl = (3 * config.electionTimeout().toMillis() + 1999) / 2000;
    Lessor lessor = Lessor.recover(store, minLeaseTtl);
    LeaseKeeper keeper = new LeaseKeeper(System::nanoTime, config.electionTimeout());
    // Every recovered lease has its full TTL from start, so none looks expired before the first
    // expiry tick; the leader promotes again when it applies its term's first entry (etcd's rule),
    // and once it has answered its first client request (below).
    keeper.promote(lessor.ttls());
    KvApplier kv = new KvApplier(lessor);
    Alarms alarms = Alarms.recover(store);
    WatchHub hub = new WatchHub();
    RaftMember.Settings settings = new RaftMember.Settings(members.self().value(), members.voterIds(),
        members.learnerIds(),
        config.heartbeatInterval(), config.electionTicks(), store::appliedIndex, store::appliedTerm,
        store::durableAppliedIndex, journalSnapshotEvents(config.snapshotCount()),
        (int) Math.min(RaftMember.CATCH_UP_ENTRIES, Math.max(1, config.snapshotCount())), store::installedIndex);
    Map<Long, URI> peers = peerUrls(members);
    PeerFilter filter = peerFilter(membership, attributes);
    CompletableFuture<LeaseForwarding> leaseForwarding = new CompletableFuture<>();
    AtomicReference<PeerTransport> transportRef = new AtomicReference<>();
    // A peer unheard for an election timeout is down, as a follower judges its leader.
    PeerActivity links = new PeerActivity(config.electionTimeout());
    Behavior<Void> guardian = Behaviors.setup(ctx -> {
      akka.actor.ActorSystem classic = Adapter.toClassic(ctx.getSystem());
      PeerTransport transport = null;
      if (!peers.isEmpty()) {
        PeerTransport t = new PeerTransport(classic, peers, filter, members.clusterId());
        PeerProbes probes = new PeerProbes(classic, members.self().value(), peers, filter, members.clusterId());
        transportRef.set(t);
        membership.onChange(m -> {
          Map<Long, URI> urls = peerUrls(m);
          t.update(urls);
          probes.update(urls);
        });
        transport = t;
        // On the Raft member's own thread: a message from a peer wakes one thread, not two.
        ctx.spawn(PeerTransport.receiver(inbox::deliver, filter, members.clusterId()), PeerTransport.RECEIVER,
            DispatcherSelector.fromConfig("akka-etcd.raft-dispatcher"));
        Adapter.actorOf(ctx, ClusterJoin.endpoint(membership), ClusterJoin.ENDPOINT);
        ctx.spawn(PeerProbes.receiver(links, filter, members.clusterId(), System::nanoTime), PeerProbes.RECEIVER);
        classic.scheduler().scheduleWithFixedDelay(config.heartbeatInterval(), config.heartbeatInterval(),
            probes::probeAll, classic.dispatcher());
        if (filter.active()) {
          Quarantine.Injected injected = new Quarantine.Injected(classic, filter, id -> peerAddress(membership, id));
          classic.scheduler().scheduleWithFixedDelay(Duration.ofMillis(50), Duration.ofMillis(50), () -> {
            filter.reload();
            try {
              injected.apply();
            } catch (RuntimeException e) {
              log.warn("fault injection: quarantine failed", e);
            }
          }, classic.dispatcher());
        }
      }
      LeaseForwarding forwarding = new LeaseForwarding(lessor, keeper, status::get,
          peerAsk(classic, membership, filter), config.electionTimeout().multipliedBy(2));
      Adapter.actorOf(ctx, forwarding.endpointProps(), LeaseForwarding.ENDPOINT);
      leaseForwarding.complete(forwarding);
      ActorRef<ApplierActor.Command> applier = ctx.spawn(
          ApplierActor.create(store, new RequestDispatch(kv, lessor, keeper, attributes, alarms,
                  // etcd promotes once the leader applied its term's first entry. Every member
                  // does here (the raft member may publish its leadership only after the applier
                  // ran): only the leader's deadlines are read, and a member that leads later
                  // promotes again for its own term.
                  term -> keeper.promoteOnce(term, lessor::ttls)), membership::apply, wait,
              applied, hub::committed), "applier",
          DispatcherSelector.fromConfig("akka-etcd.applier-dispatcher"));
      Consumer<Message> send = m -> { };
      if (transport != null) {
        // Followers that need entries this log no longer holds get a snapshot of the state machine.
        SnapshotTransfers snapshots = new SnapshotTransfers(classic,
            new ServerSnapshots(store, storeDir, membership, attributes, lessor, alarms, hub, applied, inbox, applier),
            id -> peerAddress(membership, id), inbox::snapshotSent, filter, members.clusterId());
        Adapter.actorOf(ctx, snapshots.receiverProps(), SnapshotTransfers.RECEIVER);
        PeerTransport peerTransport = transport;
        send = m -> {
          if (m.type() == io.akkaetcd.raft.MessageType.SNAPSHOT) {
            snapshots.send(m);
          } else {
            peerTransport.send(m);
          }
        };
      }
      ActorRef<RaftMember.Command> raft = ctx.spawn(RaftMember.create(settings, inbox, send,
          entries -> applier.tell(new ApplierActor.Apply(entries)), wait::fail, status), "raft",
          DispatcherSelector.fromConfig("akka-etcd.raft-dispatcher"));
      raftRef.complete(raft);
      // A member without its raft actor or its applier cannot serve: stop it rather than hang.
      ctx.watch(raft);
      ctx.watch(applier);
      return Behaviors.receive(Void.class)
          .onSignal(akka.actor.typed.Terminated.class, t -> {
            log.error("{} stopped unexpectedly; stopping the member", t.getRef().path().name());
            failed.set(true);
            return Behaviors.stopped();
          })
          .build();
    });
    ActorSystem<Void> system;
    try {
      system = ActorSystem.create(guardian, PeerTransport.SYSTEM, akkaConfig(memberDir,
          peers.isEmpty() ? Map.of() : PeerConfig.overrides(config, members, RaftMember.MAX_APPEND_BYTES)));
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
    raftRef.join(); // the member's actors exist before clients are served
    EtcdServer server = new EtcdServer(config, membership, attributes, store, system, inbox, wait, applied, status,
        failed, filter, links, alarms);
    if (!peers.isEmpty()) {
      ((akka.actor.ExtendedActorSystem) Adapter.toClassic(system)).systemActorOf(
          PromoteForwarding.endpoint(id -> server.raftStatus().isLeader() ? server.promoteMember(id)
              : CompletableFuture.failedFuture(EtcdError.LEADER_CHANGED.exception()), members.clusterId()),
          PromoteForwarding.ENDPOINT);
    }
    system.scheduler().scheduleWithFixedDelay(EXPIRY_SWEEP, EXPIRY_SWEEP, server::expireRequests,
        system.executionContext());
    membership.onChange(m -> {
      if (m.selfMember().isEmpty()) {
        // etcd: "the member has been permanently removed from the cluster"
        log.warn("{} was removed from the cluster; stopping", m.self());
        system.terminate();
      } else if (peers.isEmpty() && m.members().size() > 1 && !server.restartRequested.getAndSet(true)) {
        // A member started alone runs without the peer transport; its first peer needs one. It
        // restarts as a cluster member once the MemberAdd is answered (etcd's member add on a
        // single-member cluster, which then waits for the new member to start, as here).
        log.warn("{} got its first peer: restarting with the peer transport", m.self());
        system.scheduler().scheduleOnce(Duration.ofMillis(500), system::terminate, system.executionContext());
      }
    });
    if (!peers.isEmpty()) {
      Quarantine.onQuarantined(Adapter.toClassic(system), () -> {
        server.restartRequested.set(true);
        transportRef.get().close(); // a leader stops heartbeating now, so the others elect at once
        system.terminate();
      });
    }
    system.getWhenTerminated().whenComplete((d, e) -> {
      wait.failAll(EtcdError.STOPPED.exception());
      server.reads.failAll(EtcdError.STOPPED.exception());
      store.close();
      log.info("{} stopped; store closed", members.self());
      server.stopped.complete(null);
    });
    CompactionPolicy policy = config.autoCompactionPolicy();
    if (policy != null) {
      system.systemActorOf(AutoCompactor.create(policy, store::currentRevision,
          () -> server.raftStatus().isLeader(),
          rev -> server.propose(InternalRaftRequest.newBuilder()
              .setCompaction(CompactionRequest.newBuilder().setRevision(rev)))),
          "auto-compactor", akka.actor.typed.Props.empty());
    }
    system.systemActorOf(LeaseExpiry.create(lessor, keeper, server::raftStatus,
        id -> server.propose(InternalRaftRequest.newBuilder()
            .setLeaseRevoke(LeaseRevokeRequest.newBuilder().setID(id)))),
        "lease-expiry", akka.actor.typed.Props.empty());
    // As etcd, every start publishes the name and client URLs of the flags (a new --name on an
    // old data dir renames the member); a member with peers serves once that is applied.
    server.published = server.attributes.whenRecorded(members.self().value(), config.name(),
        config.advertiseClientUrls());
    if (!peers.isEmpty()) {
      server.ready = server.published;
    }
    // etcd answers clients a moment after its new leader promotes the leases. This member may
    // have led for seconds before it answered its first request (listeners bound after the
    // actors start, a cold JVM's first request): time no client could use must not shorten a
    // lease it recovered, so a leader gives those their full TTL again once it has answered a
    // request. Leases granted since keep exactly their TTL, as in etcd.
    Map<Long, Long> recoveredLeases = Map.copyOf(lessor.ttls());
    server.promoteAtFirstAnswer = () -> {
      if (server.raftStatus().isLeader()) {
        keeper.refresh(recoveredLeases);
      }
    };
    try {
      ClientServices services = ClientServices.create(server, kv, lessor, leaseForwarding.join(), hub, system,
          config.watchProgressNotifyInterval(), plugins);
      server.client = EtcdClient.create(services, system.executionContext());
      server.bindClientUrls(services);
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
    if (!server.ready.isDone()) {
      log.info("{} listening on {}; serving clients once its name and client URLs are published",
          members.self(), config.listenClientUrls());
    }
    server.publishAttributes();
    server.ready.thenRun(() -> ReadyLog.serving(members.self(), peers.isEmpty(), server.clusterVersion, config,
        members.clusterId()));
    return server;
  }

  /** A member's Artery address (from its first peer URL), or null if it is not a member. */
  private static String peerAddress(Membership membership, long id) {
    return membership.current().member(id).map(m -> PeerTransport.address(m.peerUrls().get(0))).orElse(null);
  }

  /** Asks other members' actors at their Artery address (their first peer URL in the membership). */
  private static PeerAsk peerAsk(akka.actor.ActorSystem classic, Membership membership, PeerFilter filter) {
    return new PeerAsk(classic, id -> peerAddress(membership, id), filter);
  }

  /** Every other member's first peer URL, by member id. */
  private static Map<Long, URI> peerUrls(ClusterMembers members) {
    Map<Long, URI> peers = new LinkedHashMap<>();
    members.members().stream().filter(m -> !m.id().equals(members.self()))
        .forEach(m -> peers.put(m.id().value(), m.peerUrls().get(0)));
    return peers;
  }

  /** etcd's default --max-learners. */
  static final int MAX_LEARNERS = 1;

  @Override
  public CompletionStage<ClusterMembers> addMember(List<URI> peerUrls, boolean learner) {
    ClusterMembers now = membership.current();
    if (!validPeerUrls(peerUrls)) {
      return CompletableFuture.failedFuture(EtcdError.MEMBER_BAD_URLS.exception());
    }
    // etcd's --strict-reconfig-check comes first, as in etcd.
    Optional<EtcdError> refused = reconfigCheck(now).mayAdd(learner);
    if (refused.isPresent()) {
      return CompletableFuture.failedFuture(refused.get().exception());
    }
    if (learner && now.learnerIds().size() >= MAX_LEARNERS) {
      return CompletableFuture.failedFuture(EtcdError.TOO_MANY_LEARNERS.exception());
    }
    if (peerUrlsTaken(now, peerUrls, 0)) {
      return CompletableFuture.failedFuture(EtcdError.PEER_URL_EXIST.exception());
    }
    MemberId id = MemberId.of(peerUrls, config.initialClusterToken());
    if (now.member(id.value()).isPresent()) {
      return CompletableFuture.failedFuture(EtcdError.MEMBER_EXIST.exception());
    }
    return proposeConfChange(ConfChange.newBuilder()
        .setType(learner ? ConfChangeType.ADD_LEARNER : ConfChangeType.ADD_MEMBER).setMemberId(id.value())
        .addAllPeerUrls(peerUrls.stream().map(URI::toString).toList()));
  }

  /**
   * etcd's MemberPromote. Only the leader knows how far a learner has caught up, so a member that
   * does not lead asks the leader ({@link PromoteForwarding}); the answer comes once this member
   * has applied the promotion too.
   */
  @Override
  public CompletionStage<ClusterMembers> promoteMember(long id) {
    ClusterMembers now = membership.current();
    Optional<ClusterMembers.Member> m = now.member(id);
    if (m.isEmpty()) {
      return CompletableFuture.failedFuture(EtcdError.MEMBER_NOT_FOUND.exception());
    }
    if (!m.get().learner()) {
      return CompletableFuture.failedFuture(EtcdError.MEMBER_NOT_LEARNER.exception());
    }
    RaftStatus status = raftStatus.get();
    if (!status.isLeader()) {
      return promotions.forward(status.leader(), id).thenCompose(v -> membership.awaitVoter(id, requestTimeout));
    }
    // etcd's isLearnerReady: the learner's log matches at least 90% of the leader's.
    long match = status.learnerMatches().getOrDefault(id, 0L);
    if (match < status.committedIndex() * 0.9) {
      return CompletableFuture.failedFuture(EtcdError.LEARNER_NOT_READY.exception());
    }
    Optional<EtcdError> refused = reconfigCheck(now).mayPromote();
    if (refused.isPresent()) {
      return CompletableFuture.failedFuture(refused.get().exception());
    }
    return proposeConfChange(ConfChange.newBuilder().setType(ConfChangeType.PROMOTE_MEMBER).setMemberId(id));
  }

  @Override
  public CompletionStage<ClusterMembers> removeMember(long id) {
    ClusterMembers now = membership.current();
    Optional<EtcdError> refused = now.voterIds().contains(id) ? reconfigCheck(now).mayRemoveVoter(id) : Optional.empty();
    if (refused.isPresent()) {
      return CompletableFuture.failedFuture(refused.get().exception());
    }
    if (now.member(id).isEmpty()) {
      return CompletableFuture.failedFuture(EtcdError.MEMBER_NOT_FOUND.exception());
    }
    return proposeConfChange(ConfChange.newBuilder().setType(ConfChangeType.REMOVE_MEMBER).setMemberId(id));
  }

  /** Peer URLs a member can be reached at: at least one, each with a host and a port. */
  private static boolean validPeerUrls(List<URI> urls) {
    return !urls.isEmpty() && urls.stream().allMatch(u -> u.getHost() != null && u.getPort() > 0);
  }

  /** True if a member other than {@code except} already has one of {@code urls}. */
  private static boolean peerUrlsTaken(ClusterMembers members, List<URI> urls, long except) {
    return members.members().stream()
        .anyMatch(m -> m.id().value() != except && m.peerUrls().stream().anyMatch(urls::contains));
  }

  /** etcd's strict reconfiguration check on the members as applied and the links as they are now. */
  private StrictReconfigCheck reconfigCheck(ClusterMembers now) {
    return new StrictReconfigCheck(config.strictReconfigCheck(), now, m -> !attributes.nameOf(m).isEmpty(), links,
        System.nanoTime());
  }

  @Override
  public CompletionStage<ClusterMembers> updateMember(long id, List<URI> peerUrls) {
    ClusterMembers now = membership.current();
    if (now.member(id).isEmpty()) {
      return CompletableFuture.failedFuture(EtcdError.MEMBER_NOT_FOUND.exception());
    }
    if (!validPeerUrls(peerUrls)) {
      return CompletableFuture.failedFuture(EtcdError.MEMBER_BAD_URLS.exception());
    }
    if (peerUrlsTaken(now, peerUrls, id)) {
      return CompletableFuture.failedFuture(EtcdError.PEER_URL_EXIST.exception());
    }
    return proposeConfChange(ConfChange.newBuilder().setType(ConfChangeType.UPDATE_MEMBER).setMemberId(id)
        .addAllPeerUrls(peerUrls.stream().map(URI::toString).toList()));
  }

  /** Proposes a membership change and completes with the members once it is applied here. */
  private CompletionStage<ClusterMembers> proposeConfChange(ConfChange.Builder change) {
    long id = ids.next();
    CompletableFuture<Object> result = wait.register(id);
    inbox.proposeConfChange(id, change.setRequestId(id).build().toByteString());
    return result.thenApply(r -> (ClusterMembers) r); // fails by expireRequests after --request-timeout
  }

  /** The test-only fault injection of {@link PeerFilter}, if akka-etcd.fault-injection names a file. */
  private static PeerFilter peerFilter(Membership membership, MemberAttributes attributes) {
    String file = ConfigFactory.load().getString("akka-etcd.fault-injection.blocked-peers-file");
    if (file.isEmpty()) {
      return PeerFilter.NONE;
    }
    log.warn("fault injection on: links to the members named in {} are cut", file);
    // By the names members are listed with: bootstrapped, or published once they run.
    return PeerFilter.following(Path.of(file), () -> {
      Map<String, Long> ids = new LinkedHashMap<>();
      membership.current().members().forEach(m -> ids.put(attributes.nameOf(m), m.id().value()));
      return ids;
    });
  }

  private static Config akkaConfig(Path memberDir, Map<String, Object> peerSettings) {
    Map<String, Object> overrides = new LinkedHashMap<>(peerSettings);
    overrides.put("akka.persistence.journal.leveldb.dir", memberDir.resolve("wal").toString());
    overrides.put("akka.persistence.snapshot-store.local.dir", memberDir.resolve("snap").toString());
    return ConfigFactory.parseMap(overrides).withFallback(ConfigFactory.load());
  }

  private void bindClientUrls(ClientServices shared) {
    Map<String, Function<HttpRequest, CompletionStage<HttpResponse>>> services =
        GrpcServices.handlers(shared, config.maxRequestBytes(), system);
    ClientRouter router = new ClientRouter(services, this, shared.metrics(), Materializer.matFromSystem(system));
    for (URI url : config.listenClientUrls()) {
      ServerBinding binding;
      try {
        binding = Http.get(system).newServerAt(url.getHost(), url.getPort()).bind(router)
            .toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
      } catch (java.util.concurrent.CompletionException e) {
        // Taken since ListenUrls.check found it free: say so in one line, as etcd would have.
        throw ListenUrls.bindFailed(new InetSocketAddress(url.getHost(), url.getPort()), e);
      }
      binding.addToCoordinatedShutdown(Duration.ofSeconds(3), system);
      bindings.add(binding);
    }
  }

  /**
   * Publishes this member's name and client URLs through Raft (etcd's publish at start), so that
   * every member lists them; retried every second until they are recorded here, by the entry's
   * apply or by a snapshot that holds it. A restarted member that recorded them already serves at
   * once and does not publish again.
   */
  private void publishAttributes() {
    if (published.isDone() || stopped.isDone()) {
      return;
    }
    propose(InternalRaftRequest.newBuilder().setMemberAttrSet(MemberAttrSetRequest.newBuilder()
        .setMemberId(membership.current().self().value()).setName(config.name())
        .addAllClientUrls(config.advertiseClientUrls().stream().map(URI::toString).toList())))
        .whenComplete((r, e) -> {
          if (e != null && !published.isDone() && !stopped.isDone()) {
            log.debug("publishing client URLs failed ({}); retrying", e.toString());
            system.scheduler().scheduleOnce(Duration.ofSeconds(1), this::publishAttributes, system.executionContext());
          }
        });
  }

  @Override
  public CompletionStage<Void> ready() {
    return ready;
  }

  @Override
  public void firstRequestAnswered() {
    promoteAtFirstAnswer.run();
  }

  @Override
  public List<URI> clientUrls(ClusterMembers.Member m) {
    return attributes.clientUrlsOf(m);
  }

  @Override
  public String name(ClusterMembers.Member m) {
    return attributes.nameOf(m);
  }

  /**
   * The in-process client of this member: the etcd API without gRPC, through the same services as
   * the client URLs (same semantics and errors; a follower forwards as over gRPC).
   */
  public EtcdClient client() {
    return client;
  }

  /** The address each --listen-client-urls is bound to (the real port when 0 was asked). */
  public List<InetSocketAddress> clientAddresses() {
    return bindings.stream().map(ServerBinding::localAddress).toList();
  }

  /**
   * True if the member stopped to be started again from the same data directory ({@link Main}
   * does so): another member quarantined its Akka incarnation, which can never talk to it again;
   * or a member started alone got its first peer and needs the peer transport.
   */
  public boolean restartRequested() {
    return restartRequested.get();
  }

  /** True unless the member stopped by itself because a vital actor failed. */
  public boolean stoppedOnRequest() {
    return !failed.get();
  }

  /** Completes once the member has stopped: actors stopped, store closed. */
  public CompletionStage<Void> whenTerminated() {
    return stopped;
  }

  /** Stops the member cleanly: unbind, stop the actors, close the store; returns when done. */
  @Override
  public void close() {
    CoordinatedShutdown.get(system).runAll(CoordinatedShutdown.unknownReason())
        .toCompletableFuture().join();
    stopped.join();
  }

  @Override
  public CompletionStage<Object> propose(InternalRaftRequest.Builder request) {
    RaftStatus status = raftStatus.get();
    if (status.committedIndex() - applied.applied() > maxApplyGap) {
      return CompletableFuture.failedFuture(EtcdError.TOO_MANY_REQUESTS.exception());
    }
    long id = ids.next();
    ByteString data = request.setId(id).build().toByteString();
    if (data.size() > config.maxRequestBytes()) {
      return CompletableFuture.failedFuture(EtcdError.REQUEST_TOO_LARGE.exception());
    }
    CompletableFuture<Object> result = wait.register(id);
    inbox.propose(id, data);
    return result; // fails by expireRequests after --request-timeout
  }

  /** How often waiting proposals and linearizable reads are checked against the request timeout. */
  private static final Duration EXPIRY_SWEEP = Duration.ofMillis(50);

  /** Fails the proposals and reads that have waited the request timeout (etcd's "request timed out"). */
  private void expireRequests() {
    long now = System.nanoTime();
    wait.expire(now, requestTimeout.toNanos(), this::timeoutError);
    // etcd answers a read index that timed out with a plain "request timed out".
    reads.expire(now, requestTimeout.toNanos(), registered -> EtcdError.TIMEOUT.exception());
  }

  /**
   * etcd's reading of a proposal that timed out: if a new leader was elected after it was made,
   * and the old one was lost no earlier than two election timeouts before that, the old leader's
   * failure is the likely cause.
   */
  private EtcdException timeoutError(long startNanos) {
    long elected = raftStatus.get().leaderElectedNanos();
    long lost = elected - 2 * config.electionTimeout().toNanos();
    boolean leaderFailed = elected != 0 && startNanos - lost > 0 && elected - startNanos > 0;
    return (leaderFailed ? EtcdError.TIMEOUT_LEADER_FAIL : EtcdError.TIMEOUT).exception();
  }

  @Override
  public CompletionStage<Void> linearizableBarrier() {
    long id = ids.next();
    CompletableFuture<Object> done = reads.register(id); // fails by expireRequests, as proposals do
    CompletableFuture<Long> readIndex = new CompletableFuture<>();
    inbox.readIndex(readIndex);
    readIndex.thenCompose(applied::waitFor).whenComplete((index, error) -> {
      if (error == null) {
        reads.trigger(id, index);
      } else {
        reads.fail(id, error);
      }
    });
    return done.thenApply(i -> null);
  }

  @Override
  public CompletionStage<Void> moveLeader(long transferee) {
    if (!raftStatus.get().isLeader()) {
      return CompletableFuture.failedFuture(EtcdError.NOT_LEADER.exception());
    }
    if (!membership.current().voterIds().contains(transferee)) {
      return CompletableFuture.failedFuture(EtcdError.BAD_LEADER_TRANSFEREE.exception());
    }
    inbox.transferLeadership(transferee);
    CompletableFuture<Void> done = new CompletableFuture<>();
    long deadline = System.nanoTime() + requestTimeout.toNanos();
    awaitLeader(transferee, deadline, done);
    return done;
  }

  /** Completes {@code done} once {@code transferee} leads (checked every heartbeat), or fails at the deadline. */
  private void awaitLeader(long transferee, long deadline, CompletableFuture<Void> done) {
    if (raftStatus.get().leader() == transferee) {
      done.complete(null);
    } else if (System.nanoTime() > deadline) {
      done.completeExceptionally(EtcdError.TIMEOUT_LEADER_TRANSFER.exception());
    } else {
      system.scheduler().scheduleOnce(config.heartbeatInterval(), () -> awaitLeader(transferee, deadline, done),
          system.executionContext());
    }
  }

  @Override
  public long newLeaseId() {
    return ids.next() & Long.MAX_VALUE;
  }

  @Override
  public Executor readExecutor() {
    return readExecutor;
  }

  @Override
  public KvStore store() {
    return store;
  }

  @Override
  public RaftStatus raftStatus() {
    return raftStatus.get();
  }

  @Override
  public ClusterMembers members() {
    return membership.current();
  }

  @Override
  public int maxRequestBytes() {
    return config.maxRequestBytes();
  }

  @Override
  public int maxTxnOps() {
    return config.maxTxnOps();
  }

  @Override
  public Alarms alarms() {
    return alarms;
  }

  @Override
  public long quotaBackendBytes() {
    return config.quotaBackendBytes();
  }

  @Override
  public String serverVersion() {
    return serverVersion;
  }

  @Override
  public String clusterVersion() {
    return clusterVersion;
  }

  public ServerConfig config() {
    return config;
  }
}
