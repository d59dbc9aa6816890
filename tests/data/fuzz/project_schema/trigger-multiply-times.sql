CREATE TRIGGER times AFTER INSERT ON kernels BEGIN UPDATE kernels SET total_us = total_us * 1000 WHERE id = NEW.id; END;
