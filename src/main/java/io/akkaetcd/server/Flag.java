package io.akkaetcd.server;

/**
 * One etcd command-line flag: its name (without dashes), etcd's default, and its help line.
 * The matching environment variable is {@code ETCD_} + the name upper-cased with '-' as '_',
 * as etcd derives it.
 */
public record Flag(String name, String defaultValue, boolean bool, String help) {

  public static Flag value(String name, String defaultValue, String help) {
    return new Flag(name, defaultValue, false, help);
  }

  public static Flag bool(String name, String help) {
    return new Flag(name, "false", true, help);
  }

  public String envName() {
    return "ETCD_" + name.toUpperCase(java.util.Locale.ROOT).replace('-', '_');
  }
}
