package io.akkaetcd.watch;

import akka.actor.typed.ActorRef;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Tells every watch stream's router that a new revision is committed. It carries no events: each
 * router reads what its watches have not seen yet from the store's history, so nothing is
 * buffered here however many streams there are or however slow they read. Thread-safe.
 */
public final class WatchHub {
  private final Set<ActorRef<WatchRouter.Command>> routers = ConcurrentHashMap.newKeySet();
  private final WatchStats stats = new WatchStats();

  public void register(ActorRef<WatchRouter.Command> router) {
    routers.add(router);
  }

  public void unregister(ActorRef<WatchRouter.Command> router) {
    routers.remove(router);
  }

  /** Called by the applier after a batch that advanced the store revision is visible to readers. */
  public void committed(long revision) {
    WatchRouter.Committed message = new WatchRouter.Committed(revision);
    routers.forEach(r -> r.tell(message));
  }

  /** etcd_debugging_mvcc_watch_stream_total: streams with a router registered. */
  public int streams() {
    return routers.size();
  }

  /** The watch figures of every stream here. */
  public WatchStats stats() {
    return stats;
  }
}
