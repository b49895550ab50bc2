"""tasks/analysis"""
