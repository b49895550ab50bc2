"""tasks/data"""
