package io.akkaetcd.server;

import io.akkaetcd.api.pipeline.Plugins;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.DispatcherSelector;
import akka.http.javadsl.ServerBinding;
import com.typesafe.config.Config;
import io.akkaetcd.alarm.Alarms;
import io.akkaetcd.api.ClientServices;
import java.util.concurrent.Executor;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.api.EtcdMember;
import io.akkaetcd.cluster.ClusterMembers;
import io.akkaetcd.cluster.MemberAttributes;
import io.akkaetcd.cluster.Membership;
import io.akkaetcd.cluster.PeerAsk;
import io.akkaetcd.proto.etcdserverpb.MemberAttrSetRequest;
import io.akkaetcd.mvcc.KvStore;
import io.akkaetcd.proto.etcdserverpb.InternalRaftRequest;
import io.akkaetcd.raft.peer.PeerActivity;
import io.akkaetcd.raft.member.RaftInbox;
import io.akkaetcd.raft.member.RaftStatus;
import io.akkaetcd.wait.AppliedIndexWait;
import io.akkaetcd.wait.Wait;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One incarnation of an akka-etcd member, as the API layer sees it ({@link EtcdMember}): a facade
 * over its store, its Raft requests ({@link Proposals}), its membership changes
 * ({@link MembershipChanges}) and its lifecycle. {@link MemberBootstrap} starts it; applications
 * embed a member through {@link io.akkaetcd.embed.EmbeddedEtcd}, which also starts the next
 * incarnation when this one asks for it ({@link #restartRequested()}).
 *
 * <p>Data directory layout: {@code member/wal} (Akka Persistence LevelDB journal: the raft log),
 * {@code member/snap} (raft snapshots), {@code member/mvcc} (the MVCC LevelDB backend).
 */
public final class EtcdServer implements EtcdMember, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EtcdServer.class);

  private final ServerConfig config;
  /** The free space of the data directory's disk (writes refused when low). */
  private final io.akkaetcd.alarm.DiskSpace disk;
  private final Membership membership;
  private final MemberAttributes attributes;
  private final KvStore store;
  /** The alarms raised in the cluster, as applied here. */
  private final Alarms alarms;
  private final ActorSystem<?> system;
  /** Where the member's actors run (a system of its own, or a host's) and how they stop. */
  private final MemberHome home;
  private final RaftInbox inbox;
  private final AtomicReference<RaftStatus> raftStatus;
  private final Proposals proposals;
  private final MembershipChanges changes;
  private final Executor readExecutor;
  private final Duration requestTimeout;
  private final String serverVersion;
  private final String clusterVersion;
  /** Set once a restart from the same data directory was asked for (quarantined; first peer). */
  final AtomicBoolean restartRequested = new AtomicBoolean();
  /** Set when the member stopped because a vital actor failed, not because it was asked to. */
  private final AtomicBoolean failed;
  /** Completes once the actors are stopped and the store is closed. */
  final CompletableFuture<Void> stopped = new CompletableFuture<>();
  /** The client-facing services the client URLs serve; set before they are bound. */
  volatile ClientServices services;
  /** Run when the first client request was answered; set before the client URLs are bound. */
  volatile Runnable promoteAtFirstAnswer = () -> { };
  /** Completes once clients are served (see {@link #ready()}); set before the client URLs are bound. */
  volatile CompletableFuture<Void> ready = CompletableFuture.completedFuture(null);
  /** Completes once this member's name and client URLs, as its flags give them now, are recorded. */
  volatile CompletableFuture<Void> published = CompletableFuture.completedFuture(null);

  EtcdServer(ServerConfig config, Membership membership, MemberAttributes attributes, KvStore store, Alarms alarms,
      MemberHome home, RaftInbox inbox, Wait wait, AppliedIndexWait applied,
      AtomicReference<RaftStatus> raftStatus, AtomicBoolean failed, PeerAsk peers, PeerActivity links,
      io.akkaetcd.alarm.DiskSpace disk) {
    this.config = config;
    this.disk = disk;
    this.membership = membership;
    this.attributes = attributes;
    this.store = store;
    this.alarms = alarms;
    this.home = home;
    this.system = home.system();
    this.inbox = inbox;
    this.raftStatus = raftStatus;
    this.failed = failed;
    this.readExecutor = system.dispatchers().lookup(DispatcherSelector.fromConfig("akka-etcd.read-dispatcher"));
    Config c = system.settings().config();
    this.requestTimeout = c.getDuration("akka-etcd.request-timeout");
    this.serverVersion = c.getString("akka-etcd.server-version");
    this.clusterVersion = c.getString("akka-etcd.cluster-version");
    RequestIds ids = new RequestIds(membership.current().self().value(), System.currentTimeMillis());
    this.proposals = new Proposals(inbox, raftStatus, applied, wait, ids, config.maxRequestBytes(),
        c.getLong("akka-etcd.max-gap-between-apply-and-commit"),
        new ProposalAdmission(config.proposalLimit().proposals(), config.proposalLimit().bytes()), requestTimeout,
        config.electionTimeout());
    PromoteForwarding promotions = new PromoteForwarding(peers, requestTimeout, membership.current().clusterId());
    this.changes = new MembershipChanges(config, membership, attributes, links, proposals, raftStatus::get,
        promotions, requestTimeout);
  }

  /**
   * Opens the data directory, starts the member in an ActorSystem of its own and binds every
   * --listen-client-urls ({@link MemberBootstrap}).
   */
  public static EtcdServer start(ServerConfig config, Config settings) {
    return MemberBootstrap.start(config, settings, Faults.NONE, Plugins.NONE);
  }

  /** As {@link #start(ServerConfig, Config)}, with {@code plugins} in the request pipeline (auth, metrics). */
  public static EtcdServer start(ServerConfig config, Config settings, Plugins plugins) {
    return MemberBootstrap.start(config, settings, Faults.NONE, plugins);
  }

  /** Internal: {@link #start(ServerConfig, Config)} with tests' fault injection. */
  public static EtcdServer start(ServerConfig config, Config settings, Faults faults) {
    return MemberBootstrap.start(config, settings, faults, Plugins.NONE);
  }

  /**
   * As {@link #start(ServerConfig, Config, Faults)}, inside {@code host}: the member's actors run
   * under a guardian of their own among the host's system actors, with the library's settings
   * (akka-etcd.*) read from the host's config; stopping the member leaves the host running, and
   * the host's CoordinatedShutdown stops the member. A member with peers gets a small system of
   * its own for its peer side (Artery at its peer URL).
   */
  public static EtcdServer startIn(akka.actor.typed.ActorSystem<?> host, ServerConfig config, Faults faults) {
    return MemberBootstrap.start(config, host.settings().config(), faults, Plugins.NONE, host);
  }

  Proposals proposals() {
    return proposals;
  }

  ActorSystem<?> system() {
    return system;
  }

  /**
   * Publishes this member's name and client URLs through Raft (etcd's publish at start), so that
   * every member lists them; retried every second until they are recorded here, by the entry's
   * apply or by a snapshot that holds it. A restarted member that recorded them already serves at
   * once and does not publish again.
   */
  void publishAttributes() {
    if (published.isDone() || stopped.isDone()) {
      return;
    }
    proposeOwn(InternalRaftRequest.newBuilder().setMemberAttrSet(MemberAttrSetRequest.newBuilder()
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
   * The client-facing services, the very instances the client URLs serve: the in-process client
   * ({@code io.akkaetcd.embed.EtcdClient}) calls these, so both see one set of semantics and errors.
   */
  public ClientServices services() {
    return services;
  }

  /** Where in-process calls complete: the member's default dispatcher, never its Raft or applier thread. */
  public Executor clientExecutor() {
    return system.executionContext();
  }

  /** The system property that sizes the JDK's common pool (the launcher sets it; MemberBootstrap warns). */
  public static final String COMMON_POOL_PARALLELISM = "java.util.concurrent.ForkJoinPool.common.parallelism";

  /** The address each --listen-client-urls is bound to (the real port when 0 was asked). */
  public List<InetSocketAddress> clientAddresses() {
    return home.bindings.stream().map(ServerBinding::localAddress).toList();
  }

  /**
   * True if the member stopped to be started again from the same data directory
   * ({@link io.akkaetcd.embed.EmbeddedEtcd} does so): another member quarantined its Akka incarnation, which can never talk to it again;
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

  /** Stops the member cleanly: unbind, stop the actors, close the store; completes when done. */
  public CompletionStage<Void> stop() {
    home.stop();
    return stopped;
  }

  /** As {@link #stop()}, waiting until the store is closed. */
  @Override
  public void close() {
    stop().toCompletableFuture().join();
  }

  @Override
  public CompletionStage<Object> propose(InternalRaftRequest.Builder request) {
    return proposals.propose(request);
  }

  /** The member's own proposal (housekeeping, alarms, publish): never refused by the clients' in-flight bound. */
  CompletionStage<Object> proposeOwn(InternalRaftRequest.Builder request) {
    return proposals.proposeOwn(request);
  }

  @Override
  public CompletionStage<Void> linearizableBarrier() {
    return proposals.linearizableBarrier();
  }

  @Override
  public CompletionStage<ClusterMembers> addMember(List<URI> peerUrls, boolean learner) {
    return changes.addMember(peerUrls, learner);
  }

  @Override
  public CompletionStage<ClusterMembers> promoteMember(long id) {
    return changes.promoteMember(id);
  }

  @Override
  public CompletionStage<ClusterMembers> removeMember(long id) {
    return changes.removeMember(id);
  }

  @Override
  public CompletionStage<ClusterMembers> updateMember(long id, List<URI> peerUrls) {
    return changes.updateMember(id, peerUrls);
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
    return proposals.newLeaseId();
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
  public Duration requestTimeout() {
    return requestTimeout;
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
  public io.akkaetcd.alarm.DiskSpace diskSpace() {
    return disk;
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
