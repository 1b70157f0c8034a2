package io.akkaetcd.raft.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** One etcd peerStatus line per change of a link's state, none while it stays the same. */
class PeerStatusLogTest {
  private static final long MS = 1_000_000L;

  @Test
  void logsEachChangeOnce() {
    Logger logger = (Logger) LoggerFactory.getLogger(PeerStatusLog.class);
    ListAppender<ILoggingEvent> seen = new ListAppender<>();
    seen.start();
    logger.addAppender(seen);
    try {
      PeerActivity activity = new PeerActivity(Duration.ofMillis(1000));
      PeerStatusLog log = new PeerStatusLog(activity, 0xa);
      log.check(Set.of(0xbL), 0); // never heard: nothing to say yet
      activity.heard(0xb, 100 * MS);
      log.check(Set.of(0xbL), 200 * MS);
      log.check(Set.of(0xbL), 300 * MS);
      log.check(Set.of(0xbL), 1500 * MS); // silent for more than the timeout
      log.check(Set.of(0xbL), 1600 * MS);
      activity.heard(0xb, 1700 * MS);
      log.check(Set.of(0xbL), 1700 * MS);
      List<String> lines = seen.list.stream().map(e -> e.getLevel() + " " + e.getFormattedMessage()).toList();
      assertEquals(List.of(
          "INFO a peer became active peer-id=b",
          "WARN a peer became inactive (message send to peer failed) peer-id=b "
              + "error=no message from the peer within the election timeout",
          "INFO a peer became active peer-id=b"), lines);
    } finally {
      logger.detachAppender(seen);
    }
  }

  /** What the metrics hear: each change once; a removed member's active link is reported removed. */
  @Test
  void reportsChangesAndARemovedMembersLinkToTheTraffic() {
    List<String> reported = new java.util.ArrayList<>();
    PeerTraffic traffic = new PeerTraffic() {
      @Override
      public void linkChanged(long peer, boolean active) {
        reported.add(Long.toHexString(peer) + (active ? " active" : " inactive"));
      }

      @Override
      public void removed(long peer) {
        reported.add(Long.toHexString(peer) + " removed");
      }
    };
    PeerActivity activity = new PeerActivity(Duration.ofMillis(1000));
    PeerStatusLog log = new PeerStatusLog(activity, 0xa, traffic);
    activity.heard(0xb, 100 * MS);
    activity.heard(0xc, 100 * MS);
    log.check(Set.of(0xbL, 0xcL), 200 * MS);
    log.check(Set.of(0xbL, 0xcL), 300 * MS);
    log.check(Set.of(0xbL), 400 * MS); // c removed from the cluster while its link was active
    log.check(Set.of(0xbL), 500 * MS);
    assertEquals(List.of("b active", "c active", "c removed"), reported.stream().sorted().toList());
  }
}
