package io.akkaetcd.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Script tests: each file in {@code src/test/resources/raft/} is a list of commands (lines
 * starting with {@code > }) each followed by what it must print: the messages delivered, the
 * entries applied, the read states, role changes. Lines starting with {@code #} are comments.
 * To regenerate the expected output after an intended change, run with
 * {@code -Draft.script.rewrite=true} and review the diff.
 *
 * <p>Commands: {@code campaign N}, {@code tick N [times]}, {@code propose N data...},
 * {@code read N ctx}, {@code deliver [count]} (one message, FIFO, or all now queued),
 * {@code stabilize} (deliver until quiet), {@code drop-from N}, {@code drop-to N},
 * {@code isolate N} / {@code heal}, {@code restart N}, {@code transfer N to}, {@code confchange N add|remove|learner|promote M}
 * (applied when committed), {@code join M} (a new, empty member that knows the voters and itself),
 * {@code learner M} (a new, empty member that knows the voters and that it is a learner), {@code compact N index}
 * (N's driver drops its log up to index), {@code status}. Delivering a SNAPSHOT message does what
 * a driver does: the sender's applied state is installed on the receiver (unless it has applied as
 * much), and the sender's core hears that the transfer ended.
 */
class RaftScriptTest {
  private static final Path DIR = Path.of("src/test/resources/raft");

  @TestFactory
  Stream<DynamicTest> scripts() throws IOException {
    try (Stream<Path> files = Files.list(DIR)) {
      return files.filter(p -> p.toString().endsWith(".txt")).sorted().toList().stream()
          .map(p -> DynamicTest.dynamicTest(p.getFileName().toString(), () -> run(p)));
    }
  }

  private static void run(Path file) throws IOException {
    String expected = Files.readString(file, StandardCharsets.UTF_8);
    String actual = new Script().execute(expected);
    if (Boolean.getBoolean("raft.script.rewrite")) {
      Files.writeString(file, actual, StandardCharsets.UTF_8);
      return;
    }
    assertEquals(expected, actual, file + " (rewrite with -Draft.script.rewrite=true and review the diff)");
  }

  /** A small cluster whose messages are delivered only when a command says so. */
  static final class Script {
    private final Map<Long, MemoryStorage> storages = new LinkedHashMap<>();
    private final Map<Long, RaftCore> cores = new LinkedHashMap<>();
    private final Map<Long, Long> applied = new LinkedHashMap<>();
    private final Deque<Message> network = new ArrayDeque<>();
    private final Set<Long> isolated = new HashSet<>();
    private List<Long> voters = List.of();
    private List<Long> learners = List.of();
    private StringBuilder out;

    String execute(String script) {
      StringBuilder result = new StringBuilder();
      for (String line : script.split("\n", -1)) {
        if (line.startsWith("#") || (line.isBlank() && !line.isEmpty())) {
          result.append(line).append('\n');
        } else if (line.startsWith("> ")) {
          result.append(line).append('\n');
          out = new StringBuilder();
          command(line.substring(2).trim().split("\\s+"));
          collect();
          result.append(out);
        } else if (line.isEmpty()) {
          // expected output and blank separators are regenerated
          if (result.length() > 0 && !result.toString().endsWith("\n\n")) {
            result.append('\n');
          }
        }
      }
      String s = result.toString();
      while (s.endsWith("\n\n")) {
        s = s.substring(0, s.length() - 1);
      }
      return s;
    }

    private void command(String[] a) {
      switch (a[0]) {
        case "cluster" -> {
          voters = Arrays.stream(a).skip(1).map(Long::parseLong).toList();
          for (long id : voters) {
            storages.put(id, new MemoryStorage());
            storages.get(id).bootstrap(); // a new cluster's members, as etcd bootstraps them
            applied.put(id, 0L);
            start(id);
          }
        }
        case "campaign" -> cores.get(id(a[1])).campaign();
        case "transfer" -> cores.get(id(a[1])).transferLeadership(id(a[2]));
        case "confchange" -> {
          try {
            cores.get(id(a[1])).proposeConfChange(ByteString.copyFromUtf8(a[2] + " " + a[3]));
          } catch (ProposalDroppedException e) {
            out.append("dropped: ").append(e.getMessage()).append('\n');
          }
        }
        case "join" -> {
          long id = id(a[1]);
          List<Long> withNew = new ArrayList<>(voters);
          withNew.add(id);
          voters = List.copyOf(withNew);
          storages.put(id, new MemoryStorage());
          applied.put(id, 0L);
          start(id);
        }
        case "learner" -> {
          long id = id(a[1]);
          learners = List.of(id);
          storages.put(id, new MemoryStorage());
          applied.put(id, 0L);
          start(id);
        }
        case "tick" -> {
          int times = a.length > 2 ? Integer.parseInt(a[2]) : 1;
          for (int i = 0; i < times; i++) {
            cores.get(id(a[1])).tick();
            collect();
          }
        }
        case "propose" -> {
          List<ByteString> data = Arrays.stream(a).skip(2).map(ByteString::copyFromUtf8).toList();
          try {
            cores.get(id(a[1])).propose(data);
          } catch (ProposalDroppedException e) {
            out.append("dropped: ").append(e.getMessage()).append('\n');
          }
        }
        case "read" -> {
          try {
            cores.get(id(a[1])).readIndex(ByteString.copyFromUtf8(a[2]));
          } catch (ProposalDroppedException e) {
            out.append("dropped: ").append(e.getMessage()).append('\n');
          }
        }
        case "deliver" -> {
          int n = a.length > 1 ? Integer.parseInt(a[1]) : 1;
          for (int i = 0; i < n && !network.isEmpty(); i++) {
            deliver(network.poll());
            collect();
          }
        }
        case "deliver-all" -> {
          // Every queued message is stepped before any Ready is taken, as a driver does with a
          // batch; "then <command>" runs one more command inside the same batch.
          List<Message> batch = new ArrayList<>(network);
          network.clear();
          batch.forEach(this::deliver);
          if (a.length > 2 && a[1].equals("then")) {
            command(Arrays.copyOfRange(a, 2, a.length));
          }
        }
        case "stabilize" -> {
          for (int i = 0; i < 10_000 && !network.isEmpty(); i++) {
            deliver(network.poll());
            collect();
          }
        }
        case "drop-from", "drop-to" -> {
          long id = id(a[1]);
          List<Message> gone = network.stream()
              .filter(m -> (a[0].equals("drop-from") ? m.from() : m.to()) == id).toList();
          network.removeAll(gone);
          gone.forEach(m -> out.append("dropped ").append(format(m)).append('\n'));
        }
        case "compact" -> {
          storages.get(id(a[1])).compact(Long.parseLong(a[2]));
          out.append(String.format("  %s log starts after %s%n", a[1], a[2]));
        }
        case "isolate" -> isolated.add(id(a[1]));
        case "heal" -> isolated.clear();
        case "restart" -> {
          long id = id(a[1]);
          network.removeIf(m -> m.to() == id);
          start(id);
        }
        case "status" -> cores.values().forEach(c -> out.append(String.format("%d: %s term=%d lead=%d commit=%d last=%d applied=%d%n",
            c.id(), c.role(), c.term(), c.leader(), c.committedIndex(), c.lastIndex(), applied.get(c.id()))));
        default -> throw new IllegalArgumentException("unknown command " + a[0]);
      }
    }

    private static long id(String s) {
      return Long.parseLong(s);
    }

    private void start(long id) {
      RaftConfig config = new RaftConfig(id, voters, learners, 10, 1, applied.get(id), 4, 1 << 20, true, true,
          new SplittableRandom(id));
      cores.put(id, new RaftCore(config, storages.get(id)));
    }

    private void deliver(Message m) {
      if (isolated.contains(m.from()) != isolated.contains(m.to())) {
        out.append("cut ").append(format(m)).append('\n');
        if (m.type() == MessageType.SNAPSHOT) {
          cores.get(m.from()).reportSnapshot(m.to());
        }
        return;
      }
      out.append(format(m)).append('\n');
      if (m.type() == MessageType.SNAPSHOT) {
        sendSnapshot(m);
        return;
      }
      cores.get(m.to()).step(m);
    }

    /** The sender's applied state goes to the receiver, which installs it if it is ahead. */
    private void sendSnapshot(Message m) {
      long index = applied.get(m.from());
      SnapshotPoint point = new SnapshotPoint(index, storages.get(m.from()).term(index));
      if (index > applied.get(m.to())) {
        applied.put(m.to(), index);
        boolean restored = cores.get(m.to()).installSnapshot(m.from(), m.term(), point, cores.get(m.from()).voters(),
            cores.get(m.from()).learners());
        out.append(String.format("  %d installs a snapshot at %d/%d%s%n", m.to(), point.term(), point.index(),
            restored ? "" : " (its log holds it)"));
      } else {
        out.append(String.format("  %d refuses a snapshot at %d/%d%n", m.to(), point.term(), point.index()));
      }
      cores.get(m.from()).reportSnapshot(m.to());
    }

    /** Handles every member's Ready as a driver would, printing what is visible. */
    private void collect() {
      boolean any = true;
      while (any) {
        any = false;
        for (RaftCore c : cores.values()) {
          while (c.hasReady()) {
            any = true;
            Ready rd = c.ready();
            MemoryStorage s = storages.get(c.id());
            if (rd.snapshot() != null) {
              s.resetTo(rd.snapshot().index(), rd.snapshot().term());
              out.append(String.format("  %d log restarts after %d/%d%n", c.id(), rd.snapshot().term(),
                  rd.snapshot().index()));
            }
            s.append(rd.entries());
            if (rd.hardState() != null) {
              s.setHardState(rd.hardState());
            }
            if (rd.softState() != null) {
              out.append(String.format("  %d is %s at term %d, leader %d%n",
                  c.id(), rd.softState().role(), c.term(), rd.softState().leader()));
            }
            network.addAll(rd.messages());
            if (!rd.committedEntries().isEmpty()) {
              out.append(String.format("  %d applies %s%n", c.id(),
                  rd.committedEntries().stream().map(Script::format).collect(Collectors.joining(" "))));
              for (Entry e : rd.committedEntries().stream().filter(e -> e.index() > applied.get(c.id())).toList()) {
                if (e.type() == EntryType.CONF_CHANGE) {
                  String[] cc = e.data().toStringUtf8().split(" ");
                  ConfChangeKind kind = switch (cc[0]) {
                    case "add", "promote" -> ConfChangeKind.ADD_VOTER;
                    case "learner" -> ConfChangeKind.ADD_LEARNER;
                    default -> ConfChangeKind.REMOVE;
                  };
                  c.applyConfChange(kind, Long.parseLong(cc[1]));
                  out.append(String.format("  %d voters %s%s%n", c.id(), c.voters(),
                      c.learners().isEmpty() ? "" : " learners " + c.learners()));
                }
              }
              applied.put(c.id(), rd.committedEntries().get(rd.committedEntries().size() - 1).index());
            }
            for (ReadState r : rd.readStates()) {
              out.append(String.format("  %d reads %s at %d%n", c.id(), r.requestCtx().toStringUtf8(), r.index()));
            }
            c.advance(rd);
          }
        }
      }
    }

    static String format(Entry e) {
      return e.term() + "/" + e.index() + (e.data().isEmpty() ? "" : ":" + e.data().toStringUtf8());
    }

    static String format(Message m) {
      StringBuilder b = new StringBuilder();
      b.append(m.from()).append("->").append(m.to()).append(' ').append(m.type()).append(" term=").append(m.term());
      switch (m.type()) {
        case APPEND_ENTRIES -> {
          b.append(" prev=").append(m.logTerm()).append('/').append(m.index()).append(" commit=").append(m.commit());
          if (!m.entries().isEmpty()) {
            b.append(" [").append(m.entries().stream().map(Script::format).collect(Collectors.joining(" "))).append(']');
          }
        }
        case APPEND_ENTRIES_RESPONSE -> {
          b.append(" index=").append(m.index());
          if (m.reject()) {
            b.append(" rejected hint=").append(m.logTerm()).append('/').append(m.rejectHint());
          }
        }
        case REQUEST_VOTE, REQUEST_PRE_VOTE -> b.append(" last=").append(m.logTerm()).append('/').append(m.index());
        case REQUEST_VOTE_RESPONSE, REQUEST_PRE_VOTE_RESPONSE -> b.append(m.reject() ? " rejected" : " granted");
        case HEARTBEAT -> b.append(" commit=").append(m.commit());
        case PROPOSE -> b.append(" [").append(m.entries().stream().map(e -> e.data().toStringUtf8())
            .collect(Collectors.joining(" "))).append(']');
        case READ_INDEX_RESPONSE -> b.append(" index=").append(m.index());
        case SNAPSHOT -> b.append(" compacted=").append(m.logTerm()).append('/').append(m.index());
        default -> { }
      }
      if (!m.context().isEmpty()) {
        b.append(" ctx=").append(m.context().toStringUtf8());
      }
      return b.toString();
    }
  }
}
