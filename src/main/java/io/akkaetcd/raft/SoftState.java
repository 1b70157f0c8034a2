package io.akkaetcd.raft;

/** Volatile state worth telling the caller about: who leads (0 if none known) and our role. */
public record SoftState(long leader, StateRole role) {}
