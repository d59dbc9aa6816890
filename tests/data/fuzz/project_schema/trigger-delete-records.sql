CREATE TRIGGER wipe AFTER INSERT ON workloads BEGIN DELETE FROM eval_records; DELETE FROM workloads WHERE id <> NEW.id; END;
