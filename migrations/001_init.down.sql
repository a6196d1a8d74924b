DROP TABLE distance_counts;
DROP TABLE solutions;
DROP TABLE batches;
