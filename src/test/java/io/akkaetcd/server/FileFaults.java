package io.akkaetcd.server;

import io.akkaetcd.raft.peer.PeerFilter;
import io.akkaetcd.raft.peer.PeerGate;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Faults a test drives through a file it rewrites ({@link PeerFilter}): links cut to the members
 * named, and quarantines asked for ({@link InjectedQuarantine}), re-read every 50 ms.
 */
public final class FileFaults implements Faults {
  private static final Logger log = LoggerFactory.getLogger(FileFaults.class);
  private static final Duration POLL = Duration.ofMillis(50);

  private final Path file;
  private volatile PeerFilter filter;

  public FileFaults(Path file) {
    this.file = file;
  }

  @Override
  public PeerGate peerGate(Supplier<Map<String, Long>> idsByName) {
    log.warn("fault injection on: links to the members named in {} are cut", file);
    filter = PeerFilter.following(file, idsByName);
    return filter;
  }

  @Override
  public void peerSideStarted(akka.actor.ActorSystem classic, LongFunction<String> addressOf) {
    PeerFilter f = filter;
    InjectedQuarantine injected = new InjectedQuarantine(classic, f, addressOf);
    classic.scheduler().scheduleWithFixedDelay(POLL, POLL, () -> {
      f.reload();
      try {
        injected.apply();
      } catch (RuntimeException e) {
        log.warn("fault injection: quarantine failed", e);
      }
    }, classic.dispatcher());
  }
}
