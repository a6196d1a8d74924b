DROP TABLE dead_letters;
