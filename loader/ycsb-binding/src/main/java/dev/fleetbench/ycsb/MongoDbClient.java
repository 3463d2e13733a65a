package dev.fleetbench.ycsb;

import dev.fleetbench.ycsb.mongo.MongoDb;

/**
 * YCSB binding for MongoDB (MongoDB Atlas, self-managed replica sets and sharded clusters): pass
 * {@code -db dev.fleetbench.ycsb.MongoDbClient}. The code lives in {@link MongoDb} (package
 * {@code dev.fleetbench.ycsb.mongo}); properties and behaviour are described in loader/ycsb-binding/README.md,
 * section "MongoDB binding".
 */
public class MongoDbClient extends MongoDb {}
