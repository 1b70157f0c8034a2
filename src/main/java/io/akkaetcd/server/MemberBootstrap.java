package io.akkaetcd.server;

import io.akkaetcd.api.pipeline.Plugins;
import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Behavior;
import akka.actor.typed.DispatcherSelector;
import akka.actor.typed.PostStop;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Adapter;
import akka.actor.typed.javadsl.Behaviors;
import akka.http.javadsl.settings.ServerSettings;
import com.typesafe.config.Config;
import io.akkaetcd.alarm.Alarms;
import io.akkaetcd.alarm.DiskSpace;
import io.akkaetcd.api.AuthPolicy;
import io.akkaetcd.api.ClientServices;
import io.akkaetcd.api.MemberMetricsGauges;
import io.akkaetcd.metrics.EtcdMetrics;
import io.akkaetcd.raft.storage.JournalObserver;
import io.akkaetcd.apply.ApplierActor;
import io.akkaetcd.apply.AuthApplier;
import io.akkaetcd.auth.AuthTokenOptions;
import io.akkaetcd.auth.Passwords;
import io.akkaetcd.auth.SimpleTokens;
import io.akkaetcd.auth.TokenProvider;
import io.akkaetcd.apply.KvApplier;
import io.akkaetcd.apply.RequestDispatch;
import io.akkaetcd.apply.TxnObserver;
import io.akkaetcd.cluster.ClusterMembers;
import io.akkaetcd.cluster.MemberAttributes;
import io.akkaetcd.cluster.MemberIdentity;
import io.akkaetcd.cluster.Membership;
import io.akkaetcd.compactor.AutoCompactor;
import io.akkaetcd.compactor.CompactionPolicy;
import io.akkaetcd.corrupt.CorruptMonitor;
import io.akkaetcd.corrupt.CorruptionChecks;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.lease.LeaseExpiry;
import io.akkaetcd.lease.LeaseForwarding;
import io.akkaetcd.lease.LeaseKeeper;
import io.akkaetcd.lease.Lessor;
import io.akkaetcd.mvcc.MvccStore;
import io.akkaetcd.proto.etcdserverpb.AlarmRequest;
import io.akkaetcd.proto.etcdserverpb.AlarmType;
import io.akkaetcd.proto.etcdserverpb.CompactionRequest;
import io.akkaetcd.proto.etcdserverpb.InternalRaftRequest;
import io.akkaetcd.proto.etcdserverpb.LeaseRevokeRequest;
import io.akkaetcd.raft.Message;
import io.akkaetcd.raft.member.RaftInbox;
import io.akkaetcd.raft.member.RaftMember;
import io.akkaetcd.raft.member.RaftStatus;
import io.akkaetcd.raft.peer.PeerActivity;
import io.akkaetcd.raft.peer.PeerGate;
import io.akkaetcd.raft.peer.PeerTransport;
import io.akkaetcd.raft.storage.JournalCheck;
import io.akkaetcd.raft.storage.MemberPersistence;
import io.akkaetcd.wait.AppliedIndexWait;
import io.akkaetcd.wait.Wait;
import io.akkaetcd.watch.WatchHub;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts one incarnation of a member, in the order of the data path: the data directory and its
 * membership, the journal check, the MVCC store and what is recovered from it (leases, alarms, auth),
 * then in the member's ActorSystem the applier, the peer side and the Raft member, then the
 * request expiry, lease expiry and compactor, and last the client services; the client listeners
 * are bound as soon as the ActorSystem exists, and their requests wait for those services.
 */
final class MemberBootstrap {
  private static final Logger log = LoggerFactory.getLogger(EtcdServer.class);

  private MemberBootstrap() {}

  /** How long after the first answered request the JVM's metrics register (JMX's start is CPU-heavy). */
  private static final Duration JVM_METRICS_AFTER_FIRST_ANSWER = Duration.ofSeconds(1);

  /**
   * Journal events between snapshots of the Raft log: a hundredth of --snapshot-count. etcd counts
   * entries; one of our events holds one or more (many under load), and a snapshot is small (the
   * few thousand entries a lone member keeps in memory), so snapshotting more often keeps the
   * journal a restart replays short.
   */
  static int journalSnapshotEvents(long snapshotCount) {
    return (int) Math.max(100, Math.min(Integer.MAX_VALUE, snapshotCount / 100));
  }

  /**
   * Opens the data directory, starts the member in an ActorSystem of its own and binds every
   * --listen-client-urls. {@code settings} holds the akka-etcd.* keys (reference.conf and the
   * application's overrides); the member's system is configured by {@link OwnSystemConfig}.
   * {@code faults}: {@link Faults#NONE} but in tests; {@code plugins}: the pipeline's auth and
   * metrics seams.
   */
  static EtcdServer start(ServerConfig config, Config settings, Faults faults, Plugins plugins) {
    return start(config, settings, faults, plugins, null);
  }

  /**
   * As {@link #start(ServerConfig, Config, Faults, Plugins)}, in {@code host} when not null: the
   * member's actors run under a guardian of their own among the host's system actors
   * ({@link MemberHome.Hosted}), its Raft log in a journal of its own ({@link MemberPersistence}),
   * its listeners with HTTP/2 settings of their own, and what its peers address (Artery at its
   * peer URL) in a small system of its own. {@code settings} is then the host's config.
   */
  static EtcdServer start(ServerConfig config, Config settings, Faults faults, Plugins plugins, ActorSystem<?> host) {
    if (java.util.concurrent.ForkJoinPool.getCommonPoolParallelism() < 2) {
      log.warn("the JDK common pool has 1 thread, so every gRPC request starts a thread of its own: "
          + "start the JVM with -D{}=2 (akka-etcd's Main sets it)", EtcdServer.COMMON_POOL_PARALLELISM);
    }
    // As etcd: a member that cannot listen fails before it writes anything.
    ClientTls clientTls = ListenUrls.check(config);
    SslWarmUp.begin();
    Path memberDir = config.dataDir().resolve("member");
    try {
      Files.createDirectories(memberDir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create data dir " + memberDir, e);
    }
    // As etcd starts on the files `etcdctl snapshot restore` wrote, with the restore's flags.
    EtcdRestoredDataDir.adoptIfPresent(memberDir);
    // A member joining a running cluster learns it from its peers the first time; afterwards its
    // data directory holds the membership it applied, whatever the flags say.
    boolean fresh = !Files.exists(memberDir.resolve("identity"));
    if (fresh) {
      AdvertisedPeerUrls.checkMatchesCluster(config); // etcd checks it without a WAL only
    }
    boolean joining = config.initialClusterState().equals("existing") && fresh;
    ClusterMembers bootstrap = joining ? ClusterJoin.fetch(config, settings) : config.bootstrapMembers();
    Membership membership = Membership.load(memberDir, MemberIdentity.loadOrRecord(memberDir, bootstrap));
    ClusterMembers members = membership.current();
    boolean alone = PeerSide.peerUrls(members).isEmpty();
    MemberAttributes attributes = MemberAttributes.load(memberDir);
    OwnSystemStart own = host != null ? null : OwnSystemStart.begin(PeerTransport.SYSTEM,
        () -> OwnSystemConfig.forMember(settings, memberDir,
            alone ? Map.of() : PeerConfig.overrides(config, members, RaftMember.MAX_APPEND_BYTES)));
    try {
      return startMember(config, settings, faults, plugins, host, clientTls, memberDir, membership, attributes, own);
    } catch (RuntimeException | Error e) {
      if (own != null) {
        own.abandon();
      }
      throw e;
    }
  }

  /**
   * The rest of {@link #start}: from the journal check on, in {@code own} (started while the store
   * opens) or, when that is null, in {@code host}.
   */
  private static EtcdServer startMember(ServerConfig config, Config settings, Faults faults, Plugins plugins,
      ActorSystem<?> host, ClientTls clientTls, Path memberDir, Membership membership, MemberAttributes attributes,
      OwnSystemStart own) {
    ClusterMembers members = membership.current();
    boolean alone = PeerSide.peerUrls(members).isEmpty();
    JournalCheck.verifyOpens(memberDir.resolve("wal"));
    Path storeDir = memberDir.resolve("mvcc");
    MvccStore store = MvccStore.open(storeDir);
    Wait wait = new Wait();
    AppliedIndexWait applied = new AppliedIndexWait(store.appliedIndex());
    EtcdMetrics metrics = new EtcdMetrics(config.metrics().extensive(), true, config.metrics().counting());
    AtomicReference<RaftStatus> status = new AtomicReference<>(RaftStatus.INITIAL);
    CompletableFuture<Void> leaderKnown = new CompletableFuture<>();
    JournalObserver journalTimer = journalObserver(metrics);
    if (metrics.counting()) {
      store.timeCommits(nanos -> metrics.backendCommitDuration.observe(nanos / 1e9));
      store.observeCompactions(new CompactionMetrics(metrics));
      JournalObserver.Registry.register(memberDir.resolve("wal"), journalTimer);
    }
    CompletableFuture<ActorRef<RaftMember.Command>> raftRef = new CompletableFuture<>();
    RaftInbox inbox = new RaftInbox();
    AtomicBoolean failed = new AtomicBoolean();

    // etcd's minimum lease TTL: ceil(1.5 x election timeout), in seconds.
    long minLeaseTtl = (3 * config.electionTimeout().toMillis() + 1999) / 2000;
    Lessor lessor = Lessor.recover(store, minLeaseTtl, config.leaseCheckpointPersist());
    LeaseKeeper keeper = new LeaseKeeper(System::nanoTime, config.electionTimeout());
    if (metrics.counting()) {
      LeaseMetrics leaseMetrics = new LeaseMetrics(metrics);
      lessor.observe(leaseMetrics);
      keeper.observe(leaseMetrics);
    }
    // Every recovered lease has its full TTL from start, so none looks expired before the first
    // expiry tick; the leader promotes again when it applies its term's first entry (etcd's rule),
    // and once it has answered its first client request (below).
    keeper.promote(lessor.ttls(), lessor.remainingTtls());
    if (config.leaseCheckpoint()) {
      // etcd's checkpoint interval is 5 min, not a flag; akka-etcd.lease-checkpoint-interval tunes it.
      keeper.checkpointEvery(settings.getDuration("akka-etcd.lease-checkpoint-interval"));
    }
    KvApplier kv = new KvApplier(lessor, metrics.counting() ? metrics::txnEnded : TxnObserver.NONE);
    Alarms alarms = Alarms.recover(store);
    TokenProvider tokens = AuthTokenOptions.parse(config.auth().token()).provider(config.auth().tokenTtl(),
        d -> GoDuration.parse(d, "auth-token"), new SecureRandom());
    AuthApplier auth = AuthApplier.recover(store, tokens);
    WatchHub hub = new WatchHub();
    RaftMember.Settings raftSettings = new RaftMember.Settings(members.self().value(), members.voterIds(),
        members.learnerIds(),
        config.heartbeatInterval(), config.electionTicks(), store::appliedIndex, store::appliedTerm,
        store::durableAppliedIndex, journalSnapshotEvents(config.snapshotCount()),
        (int) Math.min(RaftMember.CATCH_UP_ENTRIES, Math.max(1, config.snapshotCount())), store::installedIndex);
    CompletableFuture<Void> guardianStopped = new CompletableFuture<>();
    MemberHome.Hosted hosted = host == null ? null : new MemberHome.Hosted(host, guardianStopped);
    if (hosted != null) {
      raftSettings = raftSettings.withPersistencePlugins(MemberPersistence.JOURNAL_PLUGIN_ID,
          MemberPersistence.SNAPSHOT_PLUGIN_ID);
    }
    // LevelDB writes into a full disk are SIGBUS: keep a reserve (alarm/DiskSpace).
    DiskSpace disk = DiskSpace.of(memberDir, settings.getBytes("akka-etcd.disk-reserve"));
    raftSettings = raftSettings.withDiskExhausted(disk::exhausted);
    RaftMember.Settings raftMemberSettings = raftSettings;
    CompletableFuture<EtcdServer> started = new CompletableFuture<>();
    PeerGate gate = faults.peerGate(() -> PeerSide.idsByName(membership, attributes));
    CompletableFuture<LeaseForwarding> leaseForwarding = new CompletableFuture<>();
    CompletableFuture<CorruptionChecks> corruption = new CompletableFuture<>();
    AtomicReference<PeerSide> peerSide = new AtomicReference<>();
    // A peer unheard for an election timeout is down, as a follower judges its leader.
    PeerActivity links = new PeerActivity(config.electionTimeout());
    Behavior<Void> guardian = Behaviors.setup(ctx -> {
      ActorRef<ApplierActor.Command> applier = ctx.spawn(
          ApplierActor.create(store, new RequestDispatch(kv, lessor, keeper, attributes, alarms, auth,
                  // etcd promotes once the leader applied its term's first entry. Every member
                  // does here (the raft member may publish its leadership only after the applier
                  // ran): only the leader's deadlines are read, and a member that leads later
                  // promotes again for its own term.
                  term -> keeper.promoteOnce(term, lessor)), membership::apply, wait,
              applied, hub::committed), "applier",
          DispatcherSelector.fromConfig("akka-etcd.applier-dispatcher"));
      if (hosted != null) {
        // In a host's system the Raft member's log goes to a journal of its own, on this data dir.
        hosted.persistence = MemberPersistence.open(Adapter.toClassic(ctx.getSystem()),
            ctx.getSelf().path().child("raft"), memberDir.resolve("wal"), memberDir.resolve("snap"),
            OwnSystemConfig.of(settings).getConfig("akka.persistence"));
      }
      // What peers address runs where this member's Artery runs: in its own system, beside the
      // rest; inside a host, in a small system of the member's own bound at its peer URL.
      Function<ActorContext<?>, Consumer<Message>> peerFacing = peerCtx -> {
        akka.actor.ActorSystem classic = Adapter.toClassic(peerCtx.getSystem());
        LeaseForwarding forwarding = new LeaseForwarding(lessor, keeper, status::get,
            PeerSide.peerAsk(classic, membership, gate), config.electionTimeout().multipliedBy(2));
        Adapter.actorOf(peerCtx, forwarding.endpointProps(), LeaseForwarding.ENDPOINT);
        leaseForwarding.complete(forwarding);
        // etcd's request timeout bounds each peer's HashKV: 5 s plus two election timeouts.
        CorruptionChecks checks = new CorruptionChecks(members.self().value(), store,
            PeerSide.peerAsk(classic, membership, gate),
            () -> membership.current().members().stream().map(m -> m.id().value()).toList(),
            Duration.ofSeconds(5).plus(config.electionTimeout().multipliedBy(2)));
        Adapter.actorOf(peerCtx, checks.endpointProps(), CorruptionChecks.ENDPOINT);
        corruption.complete(checks);
        if (alone) {
          return m -> { };
        }
        PeerSide peers = new PeerSide(peerCtx, config, membership, gate, links, inbox, faults,
            PeerMetrics.of(metrics, members.self().value()));
        peerSide.set(peers);
        // Followers that need entries this log no longer holds get a snapshot of the state machine.
        return peers.sender(new ServerSnapshots(store, storeDir, membership, attributes, lessor, alarms, auth, hub, applied,
            inbox, applier), inbox);
      };
      Consumer<Message> send = hosted == null || alone ? peerFacing.apply(ctx)
          : hosted.startPeerSystem(peerFacing, OwnSystemConfig.forMember(settings, memberDir,
              peerSystemSettings(config, members)));
      ActorRef<RaftMember.Command> raft = ctx.spawn(RaftMember.create(raftMemberSettings, inbox, send,
          entries -> applier.tell(new ApplierActor.Apply(entries)), (id, e) -> {
            if (wait.isPending(id)) {
              metrics.proposalsFailed.inc();
            }
            wait.fail(id, e);
          }, status, () -> {
            metrics.leaderChanges.inc();
            leaderKnown.complete(null);
          }), "raft",
          DispatcherSelector.fromConfig("akka-etcd.raft-dispatcher"));
      raftRef.complete(raft);
      // A member without its raft actor or its applier cannot serve: stop it rather than hang.
      ctx.watch(raft);
      ctx.watch(applier);
      Function<InternalRaftRequest.Builder, CompletionStage<?>> propose =
          request -> started.thenCompose(server -> server.proposeOwn(request));
      startHousekeeping(ctx, config, store, lessor, keeper, status, propose);
      Duration corruptCheckEvery = config.corruptCheck().interval();
      if (!corruptCheckEvery.isZero()) {
        ctx.spawn(CorruptMonitor.create(members.self().value(), corruptCheckEvery, () -> status.get().isLeader(),
            () -> corruption.thenCompose(c -> c.periodicCheck(() -> started.thenCompose(EtcdServer::linearizableBarrier))),
            id -> propose.apply(InternalRaftRequest.newBuilder().setAlarm(AlarmRequest.newBuilder().setMemberID(id)
                .setAction(AlarmRequest.AlarmAction.ACTIVATE).setAlarm(AlarmType.CORRUPT)))), "corrupt-monitor");
      }
      return Behaviors.receive(Void.class)
          .onSignal(akka.actor.typed.Terminated.class, t -> {
            log.error("{} stopped unexpectedly; stopping the member", t.getRef().path().name());
            failed.set(true);
            return Behaviors.stopped();
          })
          .onSignal(PostStop.class, s -> {
            guardianStopped.complete(null);
            return Behaviors.same();
          })
          .build();
    });
    MemberHome home;
    try {
      if (hosted == null) {
        home = new MemberHome.Own(own.run(guardian));
      } else {
        hosted.spawn(guardian);
        home = hosted;
      }
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
    ActorSystem<?> system = home.system();
    // Listening from here on, beside the rest of the start; requests wait for the services.
    ClientListeners.Early listeners = ClientListeners.bindEarly(config, clientTls, system,
        () -> listenerSettings(settings, system));
    guardianStopped.thenRun(() -> raftRef.completeExceptionally(
        new IllegalStateException("the member's guardian stopped as it started (see the log)")));
    try {
      raftRef.join(); // the member's actors exist before clients are served
    } catch (java.util.concurrent.CompletionException e) {
      listeners.abandon();
      home.terminate();
      store.close();
      throw e;
    }
    EtcdServer server = new EtcdServer(config, membership, attributes, store, alarms, home, inbox, wait, applied,
        status, failed, PeerSide.peerAsk(Adapter.toClassic(home.peerSystem()), membership, gate), links, disk);
    started.complete(server);
    if (!alone) {
      peerSide.get().servePromotions(Adapter.toClassic(home.peerSystem()), id -> server.raftStatus().isLeader()
          ? server.promoteMember(id) : CompletableFuture.failedFuture(EtcdError.LEADER_CHANGED.exception()));
    }
    Proposals proposals = server.proposals();
    proposals.countFailures(metrics.proposalsFailed::inc);
    akka.actor.Cancellable expirySweep = system.scheduler().scheduleWithFixedDelay(Proposals.EXPIRY_SWEEP,
        Proposals.EXPIRY_SWEEP, proposals::expire, system.executionContext());
    // Simple tokens expire on a sweep, as etcd's simple token TTL keeper does.
    akka.actor.Cancellable diskCheck = system.scheduler().scheduleWithFixedDelay(DiskAlarm.EVERY, DiskAlarm.EVERY,
        new DiskAlarm(server, disk), system.executionContext());
    akka.actor.Cancellable tokenSweep = tokens instanceof SimpleTokens simple
        ? system.scheduler().scheduleWithFixedDelay(Duration.ofSeconds(1), Duration.ofSeconds(1), simple::expire,
            system.executionContext())
        : akka.actor.Cancellable.alreadyCancelled();
    akka.actor.Cancellable autoPromote = config.learnerAutoPromote()
        ? system.scheduler().scheduleWithFixedDelay(LearnerAutoPromote.EVERY, LearnerAutoPromote.EVERY,
            new LearnerAutoPromote(membership, server::raftStatus, server::promoteMember), system.executionContext())
        : akka.actor.Cancellable.alreadyCancelled();
    // bcrypt takes tens of milliseconds: on threads of its own, never the applier's or a transport's.
    ExecutorService bcrypt = Executors.newFixedThreadPool(2, r -> {
      Thread t = new Thread(r, "bcrypt-" + members.self());
      t.setDaemon(true);
      return t;
    });
    Passwords passwords = new Passwords(bcrypt, config.auth().bcryptCost(), new SecureRandom());
    restartOrStopOnMembership(server, home, membership, alone);
    RemovedPeers removedPeers = alone ? null : new RemovedPeers(Adapter.toClassic(home.peerSystem()), membership.current());
    akka.actor.Cancellable downing = alone ? akka.actor.Cancellable.alreadyCancelled()
        : system.scheduler().scheduleWithFixedDelay(RemovedPeers.EVERY, RemovedPeers.EVERY, removedPeers,
            system.executionContext());
    if (!alone) {
      membership.onChange(removedPeers);
      peerSide.get().onQuarantined(() -> {
        server.restartRequested.set(true);
        home.terminate();
      });
    }
    home.whenTerminated().whenComplete((d, e) -> {
      expirySweep.cancel();
      diskCheck.cancel();
      tokenSweep.cancel();
      autoPromote.cancel();
      downing.cancel();
      bcrypt.shutdownNow();
      JournalObserver.Registry.unregister(memberDir.resolve("wal"), journalTimer);
      proposals.failAll(EtcdError.STOPPED.exception());
      corruption.thenAccept(CorruptionChecks::close);
      store.close();
      log.info("{} stopped; store closed", members.self());
      server.stopped.complete(null);
    });
    // As etcd, every start publishes the name and client URLs of the flags (a new --name on an
    // old data dir renames the member); a member with peers serves once that is applied.
    server.published = attributes.whenRecorded(members.self().value(), config.name(),
        config.advertiseClientUrls());
    // etcd's ReadyNotify follows its publish through Raft, so a leader is known by then, a lone
    // member's too (it records its attributes without Raft: it is ready once it leads).
    server.ready = alone ? leaderKnown : server.published;
    // etcd answers clients a moment after its new leader promotes the leases. This member may
    // have led for seconds before it answered its first request (client services built after
    // the actors start, a cold JVM's first request): time no client could use must not shorten a
    // lease it recovered, so a leader gives those their full TTL again once it has answered a
    // request. Leases granted since keep exactly their TTL, as in etcd.
    // A lease recovered with a persisted checkpoint gets that remaining TTL, not its whole one.
    Map<Long, Long> recoveredTtls = new java.util.HashMap<>(lessor.ttls());
    recoveredTtls.putAll(lessor.remainingTtls());
    Map<Long, Long> recoveredLeases = Map.copyOf(recoveredTtls);
    server.promoteAtFirstAnswer = () -> {
      if (server.raftStatus().isLeader()) {
        keeper.refresh(recoveredLeases);
      }
      // The JVM's metrics a moment after the first answer, not beside it (a scrape registers them sooner).
      system.scheduler().scheduleOnce(JVM_METRICS_AFTER_FIRST_ANSWER, metrics::registerJvmMetrics,
          system.executionContext());
    };
    try {
      if (config.corruptCheck().initial()) {
        corruption.join().initialCheck(); // before serving, as etcd's CheckInitialHashKV
      }
      corruption.join().markServing();
      ClientServices services = ClientServices.create(server, kv, lessor, leaseForwarding.join(), hub, system,
          config.effectiveWatchProgressInterval(), plugins, auth, passwords, metrics,
          new AuthPolicy(config.clientTls().clientCertAuth(), config.auth().strictMatrix()));
      metrics.readGauges(new MemberMetricsGauges(server, wait::size, inbox::depth, hub));
      server.services = services;
      home.listening(listeners.serve(config, server, services, system));
    } catch (RuntimeException e) {
      listeners.abandon();
      server.close();
      throw e;
    }
    if (hosted != null) {
      hosted.stopWithHost(server::stop, server.stopped);
    }
    if (config.quotaBackendBytes() < 0) {
      log.warn("disabling backend quota"); // etcd's words for a negative --quota-backend-bytes
    }
    Duration progress = config.watchProgressNotifyInterval();
    if (progress.compareTo(Duration.ZERO) > 0 && progress.compareTo(ServerConfig.MIN_WATCH_PROGRESS_INTERVAL) < 0) {
      log.warn("adjusting watch progress notify interval to minimum period (min-watch-progress-notify-interval {})",
          io.akkaetcd.logs.GoDurations.format(ServerConfig.MIN_WATCH_PROGRESS_INTERVAL.toNanos()));
    }
    if (!server.ready.isDone()) {
      log.info("{} listening on {}; serving clients once {}", members.self(), config.listenClientUrls(),
          alone ? "it leads" : "its name and client URLs are published");
    }
    server.publishAttributes();
    server.ready.thenRun(() -> ReadyLog.serving(members.self(), alone, server.clusterVersion(), config,
        members.clusterId()));
    return server;
  }

  /** Feeds the journal's write batches to etcd_disk_wal_fsync_duration_seconds and the batch histogram. */
  private static JournalObserver journalObserver(EtcdMetrics metrics) {
    return new JournalObserver() {
      @Override
      public void written(long nanos) {
        metrics.walFsyncDuration.observe(nanos / 1e9);
      }

      @Override
      public void batch(int events) {
        metrics.journalWriteBatch.observe(events);
      }
    };
  }

  /**
   * Stops the member once it is removed from the cluster; restarts a member started alone once it
   * gets its first peer (it then needs the peer transport).
   */
  private static void restartOrStopOnMembership(EtcdServer server, MemberHome home, Membership membership,
      boolean alone) {
    ActorSystem<?> system = home.system();
    membership.onChange(m -> {
      if (m.selfMember().isEmpty()) {
        // etcd: "the member has been permanently removed from the cluster"
        log.warn("{} was removed from the cluster; stopping", m.self());
        home.terminate();
      } else if (alone && m.members().size() > 1 && !server.restartRequested.getAndSet(true)) {
        // A member started alone runs without the peer transport; its first peer needs one. It
        // restarts as a cluster member once the MemberAdd is answered (etcd's member add on a
        // single-member cluster, which then waits for the new member to start, as here).
        log.warn("{} got its first peer: restarting with the peer transport", m.self());
        system.scheduler().scheduleOnce(Duration.ofMillis(500), home::terminate, system.executionContext());
      }
    });
  }

  /**
   * The Akka settings of the peer system of a member with peers inside a host: its Artery; the
   * host's shutdown, not the JVM's, stops it (with the member).
   */
  private static Map<String, Object> peerSystemSettings(ServerConfig config, ClusterMembers members) {
    Map<String, Object> peer = new java.util.LinkedHashMap<>(PeerConfig.overrides(config, members,
        RaftMember.MAX_APPEND_BYTES));
    peer.put("akka.coordinated-shutdown.run-by-jvm-shutdown-hook", "off");
    return peer;
  }

  /**
   * The HTTP/2 settings of the client listeners, per binding: akka-etcd.own-actor-system.akka.http
   * over the system's own, so that a host system's settings (HTTP/2 off, timeouts) do not apply.
   * The per-connection wire layer (akka.http.http2-telemetry-class) is read from the system's
   * config only: a host without it serves without that layer (docs/embedding.md, Limits).
   */
  private static ServerSettings listenerSettings(Config settings, ActorSystem<?> system) {
    Config own = OwnSystemConfig.of(settings);
    String hook = own.getString("akka.http.http2-telemetry-class");
    Config systemConfig = system.settings().config();
    if (!systemConfig.hasPath("akka.http.http2-telemetry-class")
        || !systemConfig.getString("akka.http.http2-telemetry-class").equals(hook)) {
      log.warn("the host system's config does not set akka.http.http2-telemetry-class = \"{}\": etcdctl's http://"
          + " endpoints and clients that reset every finished call are not repaired (docs/wire.md)", hook);
    }
    return ServerSettings.create(own);
  }

  /** The leader's periodic work through Raft: revoking expired leases, and auto-compaction if configured. */
  private static void startHousekeeping(ActorContext<?> guardian, ServerConfig config, MvccStore store, Lessor lessor,
      LeaseKeeper keeper, AtomicReference<RaftStatus> status,
      Function<InternalRaftRequest.Builder, CompletionStage<?>> propose) {
    CompactionPolicy policy = config.autoCompactionPolicy();
    if (policy != null) {
      guardian.spawn(AutoCompactor.create(policy, store::currentRevision, () -> status.get().isLeader(),
          rev -> propose.apply(InternalRaftRequest.newBuilder()
              .setCompaction(CompactionRequest.newBuilder().setRevision(rev)))), "auto-compactor");
    }
    guardian.spawn(LeaseExpiry.create(lessor, keeper, status::get,
        id -> propose.apply(InternalRaftRequest.newBuilder()
            .setLeaseRevoke(LeaseRevokeRequest.newBuilder().setID(id))),
        checkpoints -> propose.apply(InternalRaftRequest.newBuilder().setLeaseCheckpoint(checkpoints))),
        "lease-expiry");
  }
}
