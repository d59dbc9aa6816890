PRAGMA writable_schema = ON; UPDATE sqlite_master SET rootpage = (SELECT rootpage FROM sqlite_master WHERE name = 'eval_records') WHERE name = 'kernels'; PRAGMA writable_schema = OFF;
