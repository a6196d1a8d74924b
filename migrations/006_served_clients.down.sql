DROP TABLE served_clients;
