DROP INDEX workloads_source_hash; CREATE INDEX workloads_source_hash ON workloads(source_hash, (SELECT 1));
