package io.akkaetcd.raft;

/**
 * What a committed configuration change does to one member: make it a voter (a new member, or a
 * learner promoted), add it as a learner (it receives the log but neither votes nor counts towards
 * a commit or a read index, etcd's learners), or remove it.
 */
public enum ConfChangeKind { ADD_VOTER, ADD_LEARNER, REMOVE }
