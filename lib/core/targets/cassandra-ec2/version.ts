/** The Maven Central version the node asset packs (loader/pom.xml `cassandra.version`; a unit test checks). */
export const CASSANDRA_VERSION = '5.0.6';
