package io.akkaetcd.server;

import akka.actor.AbstractActor;
import akka.actor.ActorSystem;
import akka.actor.Props;
import akka.pattern.Patterns;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.akkaetcd.cluster.ClusterMembers;
import io.akkaetcd.cluster.MemberId;
import io.akkaetcd.cluster.Membership;
import io.akkaetcd.errors.StartupException;
import io.akkaetcd.proto.peerpb.MemberEntry;
import io.akkaetcd.proto.peerpb.MembersRequest;
import io.akkaetcd.proto.peerpb.MembersResponse;
import io.akkaetcd.raft.peer.PeerTransport;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Joining a running cluster (--initial-cluster-state existing, after MemberAdd): the new member
 * asks the peers named in --initial-cluster for the cluster id and the members they have applied,
 * and finds itself among them by its peer URLs, as etcd does. Every member answers these
 * questions at {@code /user/}{@value #ENDPOINT}.
 */
final class ClusterJoin {
  private static final Logger log = LoggerFactory.getLogger(ClusterJoin.class);
  static final String ENDPOINT = "members";
  /** etcdmain's words when no peer told a joining member the cluster. */
  static final String CANNOT_FETCH =
      "cannot fetch cluster info from peer urls: could not retrieve cluster information from the given URLs";

  private ClusterJoin() {}

  /** The actor that tells a joining member the cluster as this member has applied it. */
  static Props endpoint(Membership membership) {
    return Props.create(Endpoint.class, () -> new Endpoint(membership));
  }

  private static final class Endpoint extends AbstractActor {
    private final Membership membership;

    Endpoint(Membership membership) {
      this.membership = membership;
    }

    @Override
    public Receive createReceive() {
      return receiveBuilder().match(MembersRequest.class, r -> {
        ClusterMembers c = membership.current();
        MembersResponse.Builder b = MembersResponse.newBuilder().setClusterId(c.clusterId());
        c.members().forEach(m -> b.addMembers(ClusterMembers.toEntry(m)));
        getSender().tell(b.build(), getSelf());
      }).build();
    }
  }

  /**
   * Asks the other members of --initial-cluster, in turn, until one answers (within a minute), from
   * a short-lived actor system on an ephemeral port. Fails if none answers or if this member's
   * peer URLs are not among the members (MemberAdd was not run).
   */
  static ClusterMembers fetch(ServerConfig config, Config settings) {
    List<URI> self = config.initialCluster().get(config.name());
    List<URI> peers = new ArrayList<>();
    config.initialCluster().forEach((name, urls) -> {
      if (!name.equals(config.name())) {
        peers.add(urls.get(0));
      }
    });
    if (peers.isEmpty()) {
      throw new StartupException(CANNOT_FETCH); // etcd's too: no other member to ask
    }
    Map<String, Object> probeSettings = new java.util.LinkedHashMap<>(PeerConfig.transport(config, self.get(0)));
    probeSettings.putAll(Map.of(
        "akka.actor.provider", "remote",
        "akka.remote.artery.canonical.hostname", self.get(0).getHost(),
        "akka.remote.artery.canonical.port", 0,
        "akka.loglevel", "WARNING"));
    ActorSystem probe = ActorSystem.create("akka-etcd-join", ConfigFactory.parseMap(probeSettings)
        .withFallback(OwnSystemConfig.of(settings)));
    try {
      Instant deadline = Instant.now().plus(Duration.ofMinutes(1));
      while (Instant.now().isBefore(deadline)) {
        for (URI peer : peers) {
          try {
            Object reply = Patterns.ask(probe.actorSelection(PeerTransport.address(peer) + "/user/" + ENDPOINT),
                MembersRequest.getDefaultInstance(), Duration.ofSeconds(2)).toCompletableFuture()
                .get(3, TimeUnit.SECONDS);
            if (reply instanceof MembersResponse r) {
              return toMembers(r, self, config);
            }
          } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            log.info("no membership from {} yet ({})", peer, e.getClass().getSimpleName());
          }
        }
      }
      log.error("no member of --initial-cluster answered within a minute; cannot join");
      throw new StartupException(CANNOT_FETCH);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } finally {
      probe.terminate();
    }
  }

  private static ClusterMembers toMembers(MembersResponse r, List<URI> selfUrls, ServerConfig config) {
    List<ClusterMembers.Member> members = new ArrayList<>();
    MemberId self = null;
    for (MemberEntry e : r.getMembersList()) {
      boolean isSelf = e.getPeerUrlsList().stream().map(URI::create).toList().equals(selfUrls);
      ClusterMembers.Member m = ClusterMembers.fromEntry(e, isSelf ? config.name() : e.getName(),
          isSelf ? config.advertiseClientUrls() : List.of());
      members.add(m);
      if (isSelf) {
        self = m.id();
      }
    }
    if (self == null) {
      throw new IllegalStateException("this member's peer URLs " + selfUrls + " are not in the cluster:"
          + " add it first (etcdctl member add " + config.name() + " --peer-urls=...)");
    }
    log.info("joining cluster {} as {} ({} members)", Long.toHexString(r.getClusterId()), self, members.size());
    return new ClusterMembers(r.getClusterId(), self, List.copyOf(members));
  }
}
