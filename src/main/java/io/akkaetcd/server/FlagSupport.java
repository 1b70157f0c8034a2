package io.akkaetcd.server;

import java.util.function.Predicate;

/**
 * What akka-etcd does with one of etcd's flags. Every flag etcd 3.4 accepts is taken; a flag whose
 * value asks for something akka-etcd lacks is never silently dropped:
 * <ul>
 *   <li>{@link State#IMPLEMENTED}: etcd's meaning.</li>
 *   <li>{@link State#IGNORED}: accepted; given with a value that {@link #when} matches, one warning
 *       line names the flag and why it has no effect here.</li>
 *   <li>{@link State#REFUSED}: given with a value that {@link #when} matches (one that would turn
 *       on a feature akka-etcd does not have), the member refuses to start with one line naming the
 *       feature; its default or "off" value is accepted.</li>
 *   <li>{@link State#LEGACY}: a flag etcd 3.4 itself only ignores, with etcd's warning.</li>
 * </ul>
 */
public record FlagSupport(State state, Condition when, String note) {

  public enum State { IMPLEMENTED, IGNORED, REFUSED, LEGACY }

  /** A test on a flag's (canonical) value, with the words the flag table shows for it. */
  public record Condition(String text, Predicate<String> test) {
    public static final Condition TRUE = new Condition("`true`", "true"::equals);
    public static final Condition FALSE = new Condition("`false`", "false"::equals);
    public static final Condition NOT_EMPTY = new Condition("not empty", v -> !v.isEmpty());
    /** A Go duration other than zero. */
    public static final Condition NOT_ZERO =
        new Condition("not 0", v -> !v.replaceAll("[-+0.]|ns|us|µs|ms|s|m|h", "").isEmpty());
    public static final Condition ALWAYS = new Condition("any value", v -> true);

    public static Condition otherThan(String... values) {
      java.util.Set<String> off = java.util.Set.of(values);
      return new Condition("other than " + String.join(", ", off.stream().sorted().map(v -> "`" + v + "`").toList()),
          v -> !off.contains(v));
    }
  }

  public static FlagSupport implemented(String note) {
    return new FlagSupport(State.IMPLEMENTED, null, note);
  }

  /** Accepted; a value {@code when} matches draws one warning saying {@code why}. */
  public static FlagSupport ignored(Condition when, String why) {
    return new FlagSupport(State.IGNORED, when, why);
  }

  /** Refused when {@code when} matches its value: {@code feature} names what is missing. */
  public static FlagSupport refused(Condition when, String feature) {
    return new FlagSupport(State.REFUSED, when, feature);
  }

  /** The note of a flag etcd does not have (akka-etcd's own): etcd would refuse it. */
  static final String OWN = "akka-etcd's own flag, not etcd's";

  /** A flag of akka-etcd's own (implemented; not in etcd 3.4, whose tests skip it). */
  public static FlagSupport own() {
    return new FlagSupport(State.IMPLEMENTED, null, OWN);
  }

  /** Whether etcd lacks this flag. */
  public boolean notEtcds() {
    return OWN.equals(note);
  }

  public static FlagSupport legacy() {
    return new FlagSupport(State.LEGACY, Condition.ALWAYS, "etcd 3.4 ignores it too, with a warning");
  }

  /** True if a flag given explicitly with {@code value} must be warned about or refused. */
  public boolean triggeredBy(String value) {
    return when != null && when.test().test(value);
  }
}
