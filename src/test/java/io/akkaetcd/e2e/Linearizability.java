package io.akkaetcd.e2e;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * A linearizability checker for histories of single-key register operations (Wing and Gong's
 * search with Lowe's memoization of visited states, as in porcupine). Keys are checked one by one:
 * linearizability is local, so a history is linearizable iff each key's sub-history is.
 *
 * <p>An operation whose outcome the client does not know (a write that timed out or failed after
 * it was sent) has no return time: it may take effect at any point after its invocation, or at
 * the very end, where it changes nothing anyone observed. A read that failed observed nothing and
 * is not recorded.
 *
 * <p>Written values are unique, so an unknown write (a put or a compare-and-swap) whose value
 * nobody observed, neither a read nor a compare-and-swap's expectation, can change only one thing
 * anyone saw: a compare-and-swap that failed because the register held that unseen value. Such a
 * write is late, not lost (a frozen member forwards it when it thaws), and it is then overwritten
 * before anyone reads it. So it is kept in the search when a compare-and-swap on its key failed
 * after it was invoked, and dropped otherwise (placing it at the very end changes nothing anyone
 * observed). Without the drop, every unknown write left pending doubles the states to visit.
 *
 * <p>The search tries operations with a known outcome before unknown ones: an unknown write is
 * placed only where the known operations cannot go on without it.
 */
final class Linearizability {
  /** What an operation did. */
  enum Kind { GET, PUT, DELETE, CAS }

  /** Known return time {@code Long.MAX_VALUE} means "unknown outcome". */
  static final long UNKNOWN = Long.MAX_VALUE;

  /**
   * One operation on {@code key}. GET: {@code output} is the value read (null: absent). PUT:
   * {@code value} written. CAS: if the value was {@code expected} (null: absent) then {@code
   * value} was written; {@code succeeded} says which (null when unknown).
   */
  record Op(String client, String key, Kind kind, String value, String expected, String output,
            Boolean succeeded, long invoke, long ret) {
    boolean unknown() {
      return ret == UNKNOWN;
    }

    @Override
    public String toString() {
      return client + " " + kind + "(" + key + (kind == Kind.CAS ? ", " + expected : "")
          + (value != null ? ", " + value : "") + ")" + (kind == Kind.GET ? " -> " + output : "")
          + (kind == Kind.CAS ? " -> " + succeeded : "") + " [" + invoke + ", " + (unknown() ? "?" : ret) + "]";
    }
  }

  /** The verdict: null if linearizable, else the key whose history is not, with its operations. */
  record Result(String key, List<Op> ops) {
    boolean ok() {
      return key == null;
    }
  }

  /** The search gives up (and fails) beyond this many visited states for one key. */
  private static final int MAX_STATES = 1_000_000;

  private Linearizability() {}

  static Result check(List<Op> history) {
    Set<String> observed = new HashSet<>();
    for (Op op : history) {
      if (op.kind() == Kind.GET && op.output() != null) {
        observed.add(op.key() + "=" + op.output());
      } else if (op.kind() == Kind.CAS && op.expected() != null) {
        observed.add(op.key() + "=" + op.expected());
      }
    }
    // Per key, the latest return of a compare-and-swap that failed: an unseen write invoked
    // before it may be what made it fail.
    Map<String, Long> lastFailedCas = new HashMap<>();
    for (Op op : history) {
      if (op.kind() == Kind.CAS && Boolean.FALSE.equals(op.succeeded())) {
        lastFailedCas.merge(op.key(), op.ret(), Math::max);
      }
    }
    Map<String, List<Op>> byKey = new TreeMap<>();
    for (Op op : history) {
      if (unseenWrite(op, observed) && op.invoke() >= lastFailedCas.getOrDefault(op.key(), Long.MIN_VALUE)) {
        continue;
      }
      byKey.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
    }
    for (Map.Entry<String, List<Op>> e : byKey.entrySet()) {
      if (!checkKey(e.getValue(), observed)) {
        return new Result(e.getKey(), e.getValue());
      }
    }
    return new Result(null, List.of());
  }

  /** A write with an unknown outcome whose value no read returned and no compare-and-swap expected. */
  private static boolean unseenWrite(Op op, Set<String> observed) {
    return op.unknown() && (op.kind() == Kind.PUT || op.kind() == Kind.CAS)
        && !observed.contains(op.key() + "=" + op.value());
  }

  private record Visited(BitSet done, String state) {}

  /**
   * The register's state after an unseen write: the value itself is never compared with anything
   * (no read returned it, no compare-and-swap expected it), so all such values are one state.
   */
  private static final String UNSEEN = "\u0000unseen";

  private static boolean checkKey(List<Op> unsorted, Set<String> observed) {
    List<Op> ops = new ArrayList<>(unsorted);
    // Known outcomes first, each part by invocation: candidates are tried in list order.
    ops.sort(Comparator.comparing(Op::unknown).thenComparingLong(Op::invoke));
    int n = ops.size();
    // Unseen writes (unknown outcome, value never observed) all leave the register in UNSEEN.
    // Unseen puts are interchangeable but for their invocation, and one invoked earlier may go
    // anywhere a later one may: so only the earliest one not yet placed is tried.
    boolean[] unseen = new boolean[n];
    BitSet unseenPuts = new BitSet(n);
    for (int i = 0; i < n; i++) {
      Op op = ops.get(i);
      unseen[i] = unseenWrite(op, observed);
      unseenPuts.set(i, unseen[i] && op.kind() == Kind.PUT);
    }
    Set<Visited> visited = new HashSet<>();
    // Depth-first search over linearization orders; the explicit stack holds, per level, the op
    // chosen there and the state before it (so a dead end backtracks without recursion).
    BitSet done = new BitSet(n);
    String state = null;
    int[] choice = new int[n + 1];
    String[] stateBefore = new String[n + 1];
    int depth = 0;
    choice[0] = -1;
    while (true) {
      if (depth == n) {
        return true;
      }
      int next = nextCandidate(ops, done, unseenPuts, choice[depth] + 1);
      boolean stepped = false;
      while (next >= 0) {
        Op op = ops.get(next);
        Object after = step(state, op);
        if (after != REJECT) {
          String s = unseen[next] && op.value().equals(after) ? UNSEEN : (String) after;
          BitSet d = (BitSet) done.clone();
          d.set(next);
          if (visited.add(new Visited(d, s))) {
            if (visited.size() > MAX_STATES) {
              throw new IllegalStateException("linearizability search too large for key " + op.key());
            }
            choice[depth] = next;
            stateBefore[depth] = state;
            done.set(next);
            state = s;
            depth++;
            choice[depth] = -1;
            stepped = true;
            break;
          }
        }
        next = nextCandidate(ops, done, unseenPuts, next + 1);
      }
      if (!stepped) {
        if (depth == 0) {
          return false;
        }
        depth--;
        done.clear(choice[depth]);
        state = stateBefore[depth];
      }
    }
  }

  /**
   * The first op at or after {@code from} that may come next: not done, and invoked before every
   * pending op's return (an op that returned before another was invoked precedes it). Of the
   * unseen puts, only the first one not done.
   */
  private static int nextCandidate(List<Op> ops, BitSet done, BitSet unseenPuts, int from) {
    int firstUnseenPut = -1;
    for (int i = unseenPuts.nextSetBit(0); i >= 0; i = unseenPuts.nextSetBit(i + 1)) {
      if (!done.get(i)) {
        firstUnseenPut = i;
        break;
      }
    }
    long minReturn = Long.MAX_VALUE;
    for (int i = done.nextClearBit(0); i < ops.size(); i = done.nextClearBit(i + 1)) {
      minReturn = Math.min(minReturn, ops.get(i).ret());
    }
    for (int i = done.nextClearBit(from); i < ops.size(); i = done.nextClearBit(i + 1)) {
      if (ops.get(i).invoke() <= minReturn && (!unseenPuts.get(i) || i == firstUnseenPut)) {
        return i;
      }
    }
    return -1;
  }

  private static final Object REJECT = new Object();

  /** The register's state after {@code op}, or REJECT if {@code op} cannot have happened in {@code state}. */
  private static Object step(String state, Op op) {
    return switch (op.kind()) {
      case GET -> Objects.equals(state, op.output()) ? state : REJECT;
      case PUT -> op.value();
      case DELETE -> null;
      case CAS -> {
        boolean matches = Objects.equals(state, op.expected());
        if (matches) {
          yield Boolean.FALSE.equals(op.succeeded()) ? REJECT : op.value();
        }
        yield Boolean.TRUE.equals(op.succeeded()) ? REJECT : state;
      }
    };
  }
}
