package dev.fleetbench.ycsb.mongo;

import com.mongodb.MongoCommandException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import dev.fleetbench.ycsb.BindingSupport;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.Properties;
import org.bson.Document;
import site.ycsb.DBException;

/**
 * Prepares the YCSB collection before a load, for the pipeline to call once the cluster is up: creates it if it is
 * absent and, on a sharded cluster, shards it on a hashed {@code _id} (the partitioning seed 004 used on MongoDB
 * Atlas: "Hash-based partitioning was used for all the models"). Without this, every document of a sharded
 * cluster would stay on the database's primary shard.
 *
 * <p>{@code mongodb.sharding}: {@code auto} (hashed {@code _id} when the server is a mongos, nothing otherwise),
 * {@code hashed} (the server must be a mongos), {@code none}. Idempotent: an existing collection, or one already
 * sharded on the same key, is left as it is.
 *
 * <pre>
 * FLEETBENCH_MONGODB_USERNAME=... FLEETBENCH_MONGODB_PASSWORD=... \
 * java -cp 'lib/*' dev.fleetbench.ycsb.mongo.MongoSchema -p mongodb.url=mongodb+srv://host/ycsb [-p table=usertable]
 * </pre>
 *
 * Prints one JSON line with what it found or made; exit code 2 for bad arguments or properties, 1 when the
 * cluster refused.
 */
public final class MongoSchema {
  /** hello's {@code msg} on a mongos. */
  static final String MONGOS = "isdbgrid";
  /** AlreadyInitialized: enableSharding on a database that already has it (before MongoDB 6.0). */
  private static final int ALREADY_INITIALIZED = 23;
  /** NamespaceExists. */
  private static final int NAMESPACE_EXISTS = 48;

  private MongoSchema() {}

  /** What {@link #prepare} did. */
  public static final class Result {
    public final String database;
    public final String collection;
    public final boolean created;
    public final boolean sharded;

    Result(String database, String collection, boolean created, boolean sharded) {
      this.database = database;
      this.collection = collection;
      this.created = created;
      this.sharded = sharded;
    }

    public String json() {
      return "{\"database\":\"" + database + "\",\"collection\":\"" + collection + "\",\"created\":" + created
          + ",\"sharded\":" + sharded + (sharded ? ",\"shardKey\":{\"_id\":\"hashed\"}" : "") + "}";
    }
  }

  /** Creates (and, per {@code mongodb.sharding}, shards) the collection the properties name. */
  public static Result prepare(MongoConfig c) throws IOException, GeneralSecurityException {
    try (MongoClient client = MongoClients.create(SharedMongoClients.settings(c))) {
      MongoDatabase admin = client.getDatabase("admin");
      boolean mongos = MONGOS.equals(admin.runCommand(new Document("hello", 1)).getString("msg"));
      if (c.sharding.equals("hashed") && !mongos) {
        throw new IllegalStateException(MongoConfig.SHARDING + "=hashed, but the server is not a mongos (a sharded"
            + " cluster's router); use auto or none for a replica set");
      }
      boolean shard = mongos && !c.sharding.equals("none");
      boolean created = false;
      MongoDatabase db = client.getDatabase(c.database);
      boolean exists = db.listCollectionNames().into(new ArrayList<>()).contains(c.table);
      if (!exists && !shard) {
        try {
          db.createCollection(c.table);
          created = true;
        } catch (MongoCommandException e) {
          if (e.getErrorCode() != NAMESPACE_EXISTS) {
            throw e;
          }
        }
      }
      if (shard) {
        try {
          admin.runCommand(new Document("enableSharding", c.database)); // needed before MongoDB 6.0
        } catch (MongoCommandException e) {
          if (e.getErrorCode() != ALREADY_INITIALIZED) {
            throw e;
          }
        }
        // creates the collection if absent; a collection already sharded on this key is accepted as is
        admin.runCommand(new Document("shardCollection", c.database + "." + c.table)
            .append("key", new Document("_id", "hashed")));
        created = !exists;
      }
      return new Result(c.database, c.table, created, shard);
    }
  }

  public static void main(String[] args) {
    MongoConfig c;
    try {
      Properties p = BindingSupport.cliProperties(args);
      c = MongoConfig.from(p);
    } catch (IllegalArgumentException | DBException e) {
      System.err.println("MongoSchema: " + e.getMessage());
      System.exit(2);
      return;
    }
    try {
      System.out.println(prepare(c).json());
    } catch (IOException | GeneralSecurityException e) {
      System.err.println("MongoSchema: " + MongoConfig.TLS_CA_FILE + ": " + e);
      System.exit(2);
    } catch (RuntimeException e) {
      System.err.println("MongoSchema: the cluster refused: " + e);
      System.exit(1);
    }
  }
}
