DELETE FROM schema_version WHERE version = 6; DROP INDEX workloads_source_hash_unique;
