package io.akkaetcd.server;

import io.akkaetcd.raft.peer.PeerGate;
import java.util.Map;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * The seam for tests' fault injection (cut links, forced quarantines): production members start
 * with {@link #NONE}; only the test launcher passes others (Main.run, EmbeddedEtcd's internal
 * start). Nothing here reads files or config.
 */
public interface Faults {
  Faults NONE = new Faults() {
    @Override
    public PeerGate peerGate(Supplier<Map<String, Long>> idsByName) {
      return PeerGate.OPEN;
    }

    @Override
    public void peerSideStarted(akka.actor.ActorSystem classic, LongFunction<String> addressOf) {}
  };

  /** The gate on this member's peer links; {@code idsByName} gives the members' ids by name as of now. */
  PeerGate peerGate(Supplier<Map<String, Long>> idsByName);

  /** Called once the peer side runs in {@code classic}; {@code addressOf} gives a member's Artery address. */
  void peerSideStarted(akka.actor.ActorSystem classic, LongFunction<String> addressOf);
}
