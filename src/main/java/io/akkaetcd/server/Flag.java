package io.akkaetcd.server;

/**
 * One etcd command-line flag: its name (without dashes), etcd 3.4's default as {@code etcd --help}
 * shows it, how its value is read, the --help section it is listed under (empty: etcd does not
 * list it, though it accepts it), a help line, and what akka-etcd does with it. The matching
 * environment variable is {@code ETCD_} + the name upper-cased with '-' as '_', as etcd derives it.
 */
public record Flag(String name, String defaultValue, FlagType type, String section, String help, FlagSupport support) {

  public String envName() {
    return "ETCD_" + name.toUpperCase(java.util.Locale.ROOT).replace('-', '_').replace('.', '_');
  }

  public boolean bool() {
    return type.isBoolean();
  }

  /** True if {@code etcd --help} lists it. */
  public boolean listed() {
    return !section.isEmpty();
  }
}
