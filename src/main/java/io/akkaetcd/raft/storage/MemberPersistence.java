package io.akkaetcd.raft.storage;

import akka.actor.ActorPath;
import akka.actor.ActorRef;
import akka.actor.ActorSystem;
import akka.pattern.Patterns;
import akka.persistence.Persistence;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The Raft log's journal and snapshot store of one member running in an ActorSystem it shares
 * (a host application's): a LevelDB journal and a local snapshot store of its own, on its data
 * directory, opened at start and closed when it stops.
 *
 * <p>Akka 2.8 resolves an EventSourcedBehavior's plugin id against the system's config, which is
 * fixed once the system runs, and keeps a plugin for the system's lifetime. So the Raft member
 * uses the two plugin ids the library ships in reference.conf ({@link #JOURNAL_PLUGIN_ID},
 * {@link #SNAPSHOT_PLUGIN_ID}), whose plugin is a {@link Router}: it forwards each message to the
 * plugin of the member that sent it. Those per-member plugins are made by Akka Persistence from a
 * config given at runtime, under an id used once ({@code Persistence.journalFor(id, config)}, the
 * internal-but-stable entry that the typed DSL's later {@code withJournalPluginConfig} wraps), so
 * Akka's own LevelDB journal and snapshot store run unchanged.
 */
public final class MemberPersistence {
  public static final String JOURNAL_PLUGIN_ID = "akka-etcd.persistence.journal";
  public static final String SNAPSHOT_PLUGIN_ID = "akka-etcd.persistence.snapshot-store";

  /** Which member plugin a sender's messages go to, by the sender's path (its Raft member). */
  private static final Map<String, MemberPersistence> BY_SENDER = new ConcurrentHashMap<>();
  /** Numbers the per-member plugin ids: each is used once per JVM. */
  private static final AtomicLong IDS = new AtomicLong();

  private final String sender;
  private final ActorSystem system;
  private final ActorRef journal;
  private final ActorRef snapshotStore;

  private MemberPersistence(String sender, ActorSystem system, ActorRef journal, ActorRef snapshotStore) {
    this.sender = sender;
    this.system = system;
    this.journal = journal;
    this.snapshotStore = snapshotStore;
  }

  /**
   * Starts the journal on {@code walDir} and the snapshot store on {@code snapDir} for the
   * persistent actor at {@code persistentActor} (before it is spawned). {@code persistenceSettings}
   * is an {@code akka.persistence} section: its LevelDB journal and local snapshot store settings
   * are the ones used, with the directories replaced.
   */
  public static MemberPersistence open(ActorSystem system, ActorPath persistentActor, Path walDir, Path snapDir,
      Config persistenceSettings) {
    long n = IDS.incrementAndGet();
    String journalId = "akka-etcd.persistence.member-" + n + "-journal";
    String snapshotId = "akka-etcd.persistence.member-" + n + "-snapshot-store";
    Config journalConfig = ConfigFactory.parseMap(Map.of("dir", walDir.toString()))
        .withFallback(persistenceSettings.getConfig("journal.leveldb"));
    Config snapshotConfig = ConfigFactory.parseMap(Map.of("dir", snapDir.toString()))
        .withFallback(persistenceSettings.getConfig("snapshot-store.local"));
    Persistence persistence = Persistence.get(system);
    ActorRef journal = persistence.journalFor(journalId, journalConfig.atPath(journalId));
    ActorRef snapshots = persistence.snapshotStoreFor(snapshotId, snapshotConfig.atPath(snapshotId));
    MemberPersistence opened = new MemberPersistence(persistentActor.toString(), system, journal, snapshots);
    BY_SENDER.put(opened.sender, opened);
    return opened;
  }

  /** Stops the member's journal and snapshot store; completes once both are stopped (LevelDB closed). */
  public CompletionStage<Void> close() {
    BY_SENDER.remove(sender, this);
    Duration timeout = Duration.ofSeconds(10);
    return Patterns.gracefulStop(journal, timeout).toCompletableFuture()
        .thenCombine(Patterns.gracefulStop(snapshotStore, timeout), (a, b) -> (Void) null)
        .exceptionally(e -> null);
  }

  /**
   * The plugin at {@link #JOURNAL_PLUGIN_ID} and at {@link #SNAPSHOT_PLUGIN_ID} (one of each per
   * system): forwards what a member's Raft member sends to that member's own plugin. A sender with
   * no plugin open (its member stopped) is answered by no one, as by a stopped plugin.
   */
  public static final class Router extends akka.actor.AbstractActor {
    private final boolean journal;

    public Router(Config config) {
      this.journal = config.getString("routes-to").equals("journal");
    }

    @Override
    public Receive createReceive() {
      return receiveBuilder().matchAny(this::route).build();
    }

    private void route(Object message) {
      MemberPersistence member = BY_SENDER.get(getSender().path().toString());
      if (member == null || member.system != getContext().getSystem()) {
        getContext().getSystem().deadLetters().forward(message, getContext());
        return;
      }
      (journal ? member.journal : member.snapshotStore).forward(message, getContext());
    }
  }
}
