package dev.fleetbench.ycsb;

import dev.fleetbench.ycsb.cql.CqlDb;

/**
 * YCSB binding for CQL (ScyllaDB, Apache Cassandra): pass {@code -db dev.fleetbench.ycsb.CqlClient}. The code
 * lives in {@link CqlDb} (package {@code dev.fleetbench.ycsb.cql}); properties and behaviour are described in
 * loader/ycsb-binding/README.md, section "CQL binding".
 */
public class CqlClient extends CqlDb {}
