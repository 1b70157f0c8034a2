package io.akkaetcd.raft;

/** What a log entry carries: a state-machine command or a configuration change. */
public enum EntryType { NORMAL, CONF_CHANGE }
