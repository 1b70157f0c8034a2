package io.akkaetcd.raft.storage;

import akka.persistence.AtomicWrite;
import akka.persistence.journal.leveldb.LeveldbJournal;
import com.typesafe.config.Config;
import java.nio.file.Path;
import org.iq80.leveldb.WriteBatch;
import scala.Function1;
import scala.collection.immutable.Seq;
import scala.concurrent.Future;
import scala.runtime.BoxedUnit;
import scala.util.Try;

/**
 * Akka's LevelDB journal, timed: every write batch (one LevelDB write, synced with fsync = on) is
 * reported to the {@link JournalObserver} registered for its directory, as etcd times its WAL's
 * fsync. The write itself is Akka's, unchanged; it runs synchronously inside
 * {@code asyncWriteMessages} on the journal actor's thread, so the clock brackets exactly it.
 */
public class TimedLeveldbJournal extends LeveldbJournal {
  private final JournalObserver observer;

  public TimedLeveldbJournal(Config config) {
    super(config);
    observer = JournalObserver.Registry.of(Path.of(config.getString("dir")));
  }

  @Override
  public <R> R withBatch(Function1<WriteBatch, R> body) {
    long start = System.nanoTime();
    R result = super.withBatch(body);
    observer.written(System.nanoTime() - start);
    return result;
  }

  @Override
  public Future<Seq<Try<BoxedUnit>>> asyncWriteMessages(Seq<AtomicWrite> messages) {
    int events = 0;
    for (scala.collection.Iterator<AtomicWrite> it = messages.iterator(); it.hasNext(); ) {
      events += it.next().size();
    }
    observer.batch(events);
    return super.asyncWriteMessages(messages);
  }
}
