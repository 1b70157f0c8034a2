package io.akkaetcd.e2e;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
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
 * nobody observed, neither a read nor a compare-and-swap's expectation, may as well not have
 * happened: it is dropped before the search. Without this, every unknown write left pending
 * doubles the states to visit.
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
    Map<String, List<Op>> byKey = new TreeMap<>();
    for (Op op : history) {
      boolean unobservedWrite = op.unknown() && (op.kind() == Kind.PUT || op.kind() == Kind.CAS)
          && !observed.contains(op.key() + "=" + op.value());
      if (unobservedWrite) {
        continue;
      }
      byKey.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
    }
    for (Map.Entry<String, List<Op>> e : byKey.entrySet()) {
      if (!checkKey(e.getValue())) {
        return new Result(e.getKey(), e.getValue());
      }
    }
    return new Result(null, List.of());
  }

  private record Visited(BitSet done, String state) {}

  private static boolean checkKey(List<Op> unsorted) {
    List<Op> ops = new ArrayList<>(unsorted);
    ops.sort(Comparator.comparingLong(Op::invoke));
    Set<Visited> visited = new HashSet<>();
    // Depth-first search over linearization orders; the explicit stack holds, per level, the op
    // chosen there and the state before it (so a dead end backtracks without recursion).
    int n = ops.size();
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
      int next = nextCandidate(ops, done, choice[depth] + 1);
      boolean stepped = false;
      while (next >= 0) {
        Op op = ops.get(next);
        Object after = step(state, op);
        if (after != REJECT) {
          String s = (String) after;
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
        next = nextCandidate(ops, done, next + 1);
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
   * pending op's return (an op that returned before another was invoked precedes it).
   */
  private static int nextCandidate(List<Op> ops, BitSet done, int from) {
    long minReturn = Long.MAX_VALUE;
    for (int i = done.nextClearBit(0); i < ops.size(); i = done.nextClearBit(i + 1)) {
      minReturn = Math.min(minReturn, ops.get(i).ret());
    }
    for (int i = done.nextClearBit(from); i < ops.size(); i = done.nextClearBit(i + 1)) {
      if (ops.get(i).invoke() <= minReturn) {
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
