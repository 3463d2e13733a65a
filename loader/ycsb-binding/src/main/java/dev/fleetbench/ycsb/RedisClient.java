package dev.fleetbench.ycsb;

import dev.fleetbench.ycsb.redis.RedisDb;

/**
 * YCSB binding for Redis (standalone or Redis Cluster): pass {@code -db dev.fleetbench.ycsb.RedisClient}. The
 * code lives in {@link RedisDb} (package {@code dev.fleetbench.ycsb.redis}); properties and behaviour are
 * described in loader/ycsb-binding/README.md, section "Redis binding".
 */
public class RedisClient extends RedisDb {}
