module example.com/netlib

go 1.22
